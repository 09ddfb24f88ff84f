package objects

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

// Objects are the Kubernetes objects of one file, decoded and defaulted, in
// document order, and the model services they make.
type Objects struct {
	// Source names the file in errors.
	Source string
	// KubeServices, Slices and KubeNodes are the typed objects, with the
	// API server's defaults applied.
	KubeServices []corev1.Service
	Slices       []discoveryv1.EndpointSlice
	KubeNodes    []corev1.Node
	// Ignored counts the objects of other kinds, by kind.
	Ignored map[string]int
	// Warnings are things kube-proxy would log and svclab models its way
	// (e.g. a service port no EndpointSlice port matches).
	Warnings []string

	// Services are the model services, one per Service, in document order.
	Services model.Slice
	// Nodes are the Node objects' names, zones and addresses.
	Nodes []Node
}

// readVersions are the API versions of the kinds kube-proxy reads (the
// others, e.g. discovery.k8s.io/v1beta1, no longer served since
// Kubernetes 1.25, are refused rather than ignored).
var readVersions = map[string]string{
	"Service": "v1", "ServiceList": "v1", "Node": "v1", "NodeList": "v1", "List": "v1",
	"EndpointSlice": "discovery.k8s.io/v1", "EndpointSliceList": "discovery.k8s.io/v1",
}

// maxNesting bounds Lists inside Lists.
const maxNesting = 2

var (
	scheme     = newScheme()
	serializer = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Strict: true})
)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := discoveryv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// Sniff reports whether raw looks like Kubernetes objects rather than an
// svclab scenario: JSON, or a first YAML document whose top level has
// apiVersion and kind (a List, Service, EndpointSlice, Node or any other
// object).
func Sniff(raw []byte) bool {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var probe struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(firstJSON(trimmed), &probe) == nil {
			return probe.Kind != ""
		}
	}
	r := utilyaml.NewYAMLReader(bufioReader(raw))
	var top map[string]any
	for top == nil { // skip documents that hold only comments
		doc, err := r.Read()
		if err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		doc = splitDocumentEnds(doc)[0]
		if yaml.Unmarshal(doc, &top) != nil || errors.Is(err, io.EOF) && top == nil {
			return false
		}
	}
	_, hasKind := top["kind"]
	_, hasVersion := top["apiVersion"]
	return hasKind && hasVersion
}

// firstJSON returns the first JSON value of a stream (or all of it).
func firstJSON(b []byte) []byte {
	var v json.RawMessage
	if json.NewDecoder(bytes.NewReader(b)).Decode(&v) == nil {
		return v
	}
	return b
}

// Decode decodes, defaults and converts the objects of one file. source
// names the file in errors. The first problem is returned as an *Error.
func Decode(source string, raw []byte) (*Objects, error) {
	docs, err := documents(source, raw)
	if err != nil {
		return nil, err
	}
	o := &Objects{Source: source, Ignored: map[string]int{}}
	for i, d := range docs {
		where := ""
		if len(docs) > 1 {
			where = "document " + strconv.Itoa(i+1)
		}
		if err := o.add(d, where, 0); err != nil {
			return nil, err
		}
	}
	if len(o.KubeServices)+len(o.Slices)+len(o.KubeNodes) == 0 {
		return nil, &Error{File: source, Msg: "no Service, EndpointSlice or Node objects", Hint: "export them with kubectl get services,endpointslices,nodes -A -o yaml"}
	}
	if err := o.convert(); err != nil {
		return nil, err
	}
	return o, nil
}

// documents splits raw into JSON documents: a JSON stream, or YAML
// documents separated by ---, each converted to JSON (duplicate keys are
// errors).
func documents(source string, raw []byte) ([][]byte, error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &Error{File: source, Msg: "the file is empty", Hint: "export objects with kubectl get services,endpointslices,nodes -A -o yaml"}
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		return jsonDocuments(source, trimmed)
	}
	var out [][]byte
	r := utilyaml.NewYAMLReader(bufioReader(raw))
	n := 0
	for {
		chunk, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, yamlError(source, n+1, err)
		}
		for _, doc := range splitDocumentEnds(chunk) {
			n++
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			j, err := yaml.YAMLToJSONStrict(doc)
			if err != nil {
				return nil, yamlError(source, n, err)
			}
			out = append(out, j)
		}
	}
}

// splitDocumentEnds splits what lies between two "---" lines at its
// document end markers ("..." at the start of a line, alone or before a
// comment): YAML ends a document there, and a bare document may follow.
func splitDocumentEnds(chunk []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i < len(chunk); {
		end := bytes.IndexByte(chunk[i:], '\n')
		next := len(chunk)
		if end >= 0 {
			next = i + end + 1
		}
		if isDocumentEnd(chunk[i:next]) {
			out = append(out, chunk[start:i])
			start = next
		}
		i = next
	}
	return append(out, chunk[start:])
}

func isDocumentEnd(line []byte) bool { return isMarker(line, "...") }

// isMarker reports whether line is the marker alone (or before a comment).
func isMarker(line []byte, marker string) bool {
	rest, ok := bytes.CutPrefix(line, []byte(marker))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r")
	return len(rest) == 0 || rest[0] == '\n' || rest[0] == '#'
}

func jsonDocuments(source string, b []byte) ([][]byte, error) {
	if b[0] == '[' {
		return nil, &Error{File: source, Msg: "a JSON array", Hint: "give a List object (kubectl get -o json) or a stream of objects"}
	}
	var out [][]byte
	dec := json.NewDecoder(bytes.NewReader(b))
	for n := 1; ; n++ {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &Error{File: source, Msg: fmt.Sprintf("document %d is not valid JSON: %v", n, err), Hint: "give a kubectl get -o json List", Err: err}
		}
		out = append(out, v)
	}
}

// stripComments drops YAML comment lines and bare "---" lines, to
// recognise empty documents.
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && !isMarker(line, "---") {
			b.Write(line)
		}
	}
	return b.Bytes()
}

// add decodes one JSON object strictly and files it by kind. where locates
// it in errors ("document 2", "items[3]").
func (o *Objects) add(doc []byte, where string, depth int) error {
	obj, gvk, err := serializer.Decode(doc, nil, nil)
	if err != nil && runtime.IsNotRegisteredError(err) && gvk != nil {
		if read, ok := readVersions[gvk.Kind]; ok {
			return o.locate(doc, where).errorf("apiVersion", fmt.Sprintf("%s %s is not what kube-proxy reads", apicheck.Excerpt(gvk.GroupVersion().String()), gvk.Kind),
				"kube-proxy reads "+read+" (kubectl get -o yaml writes it)")
		}
		o.Ignored[gvk.Kind]++
		return nil
	}
	if err != nil && !runtime.IsStrictDecodingError(err) {
		return o.decodeError(doc, where, err)
	}
	if err != nil {
		return o.strictError(doc, where, err)
	}
	switch v := obj.(type) {
	case *corev1.List:
		if depth >= maxNesting {
			return o.locate(doc, where).errorf("", "a List nested too deep", "")
		}
		for i, item := range v.Items {
			if err := o.add(item.Raw, joinPath(where, fmt.Sprintf("items[%d]", i)), depth+1); err != nil {
				return err
			}
		}
	case *corev1.ServiceList:
		for i := range v.Items {
			o.addService(v.Items[i])
		}
	case *discoveryv1.EndpointSliceList:
		o.Slices = append(o.Slices, v.Items...)
	case *corev1.NodeList:
		o.KubeNodes = append(o.KubeNodes, v.Items...)
	case *corev1.Service:
		o.addService(*v)
	case *discoveryv1.EndpointSlice:
		o.Slices = append(o.Slices, *v)
	case *corev1.Node:
		o.KubeNodes = append(o.KubeNodes, *v)
	default:
		o.Ignored[gvk.Kind]++
	}
	return nil
}

func (o *Objects) addService(s corev1.Service) { o.KubeServices = append(o.KubeServices, s) }

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// locate names the object of doc as well as a failed decode allows.
func (o *Objects) locate(doc []byte, where string) objectRef {
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(doc, &meta)
	kind := meta.Kind
	if kind == "" {
		kind = "object"
	}
	if where != "" {
		kind = where + ": " + kind
	}
	return objectRef{file: o.Source, kind: kind, name: nsName(meta.Metadata.Namespace, meta.Metadata.Name)}
}

func (o *Objects) decodeError(doc []byte, where string, err error) error {
	ref := o.locate(doc, where)
	msg := err.Error()
	if runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
		e := ref.errorf("", "not a Kubernetes object: "+msg, "every object needs apiVersion and kind; give a kubectl get -o yaml List")
		e.Err = err
		return e
	}
	if strings.Contains(msg, "couldn't get version/kind") { // not a mapping at all: a Go type would follow
		e := ref.errorf("", "not a Kubernetes object: the document is not a YAML or JSON mapping with apiVersion and kind",
			"give the output of kubectl get services,endpointslices,nodes -A -o yaml")
		e.Err = err
		return e
	}
	field := ""
	if m := unmarshalRE.FindStringSubmatch(msg); m != nil { // json: cannot unmarshal X into Go struct field T.a.b of type Y
		field, msg = m[2], fmt.Sprintf("a %s where %s %s is wanted", m[1], article(m[3]), m[3])
	}
	e := ref.errorf(field, msg, "")
	e.Err = err
	return e
}

var unmarshalRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.(\S+) of type (\S+)`)

func article(typ string) string {
	if strings.ContainsAny(typ[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// strictError reports the first unknown or duplicate field.
func (o *Objects) strictError(doc []byte, where string, err error) error {
	ref := o.locate(doc, where)
	var se interface{ Errors() []error }
	msg, field := err.Error(), ""
	if errors.As(err, &se) && len(se.Errors()) > 0 {
		msg = se.Errors()[0].Error()
		if a, b, ok := strings.Cut(msg, ` field "`); ok {
			field, msg = strings.TrimSuffix(b, `"`), a+" field"
		}
	}
	e := ref.errorf(field, msg, "remove it or fix its spelling")
	e.Err = err
	return e
}

func bufioReader(raw []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(raw)) }

// yamlError reports a document that does not parse, on one line.
func yamlError(source string, n int, err error) error {
	msg := strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")), " ")
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "yaml: "), "unmarshal errors: ")
	if strings.Contains(msg, "already set in map") {
		return &Error{File: source, Msg: fmt.Sprintf("document %d: %s", n, strings.Replace(msg, "already set in map", "is given twice", 1)), Hint: "give each field once", Err: err}
	}
	return &Error{File: source, Msg: fmt.Sprintf("document %d is neither YAML nor JSON: %s", n, msg), Hint: "give a kubectl get -o yaml or -o json List", Err: err}
}
