package main

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "import", summary: "summarise a cluster's Kubernetes objects; write an anonymised copy or a scenario of its shape", usage: importUsage, run: runImport})
	inputErrors = append(inputErrors, func(err error) bool {
		var oe *objects.Error
		return errors.As(err, &oe)
	})
}

const importUsage = `Usage: svclab import [options] FILE|-

Reads a cluster's Services, EndpointSlices and Nodes, as
  kubectl get services,endpointslices,nodes -A -o yaml     (or -o json)
writes them (a List, or a multi-document YAML or JSON stream; "-" is stdin),
and prints the cluster's shape as kube-proxy sees it: services by type,
family and traffic policy, features (affinity, externalIPs, source ranges,
health-check node ports, traffic distribution), ports, and the distribution
of endpoints per service. Objects of other kinds are ignored and counted on
stderr. The same file is also a scenario: svclab render --scenario FILE
renders it, and a scenario's cluster.objects: FILE adds its services.
Needs no privilege.

Options:
  --anonymize OUT       also write an anonymised copy to OUT (a YAML List): names hashed,
                        addresses remapped per family keeping their subnet structure, all
                        else kube-proxy does not read dropped; it renders to the same rule
                        counts, so it can go with a bug report
  --anonymize-key KEY   the key of the hashes and remapping (default: random, so two runs
                        differ; give one to get the same copy again)
  --scenario OUT        also write a scenario to OUT whose synthetic.mix reproduces the shape
                        (svclab render, run and up accept it)
  --scale K             the scenario's size as a multiple of the cluster's (default 1)
  --seed S              the scenario's synthetic seed (default 1)
  --node NAME           the node the rules are for (default: the first Node in the file)
  --format F            text (default), markdown or json (--json): the shape; with json
                        the "wrote" lines go to stderr

Examples:
  kubectl get services,endpointslices,nodes -A -o yaml > cluster.yaml
  svclab import cluster.yaml
  kubectl get services,endpointslices,nodes -A -o json | svclab import -
  svclab import cluster.yaml --anonymize cluster-anon.yaml
  svclab import cluster.yaml --scenario ours-3x.yaml --scale 3 && svclab render --summary --scenario ours-3x.yaml
`

type importFlags struct {
	anonymize, key, scenario, node string
	scale                          float64
	seed                           uint64
}

func runImport(args []string, stdout, stderr io.Writer) error {
	var f importFlags
	fs := newFlagSet("import")
	fs.StringVar(&f.anonymize, "anonymize", "", "")
	fs.StringVar(&f.key, "anonymize-key", "", "")
	fs.StringVar(&f.scenario, "scenario", "", "")
	fs.Float64Var(&f.scale, "scale", 1, "")
	fs.Uint64Var(&f.seed, "seed", 1, "")
	fs.StringVar(&f.node, "node", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give one FILE of objects, or - for stdin")
	}
	if math.IsNaN(f.scale) || f.scale <= 0 || f.scale > 1e4 {
		return usagef("--scale %g: want a multiple > 0 (at most 10000)", f.scale)
	}
	name, raw, err := readObjects(rest[0])
	if err != nil {
		return err
	}
	o, err := objects.Decode(name, raw)
	if err != nil {
		return err
	}
	if f.node != "" && !o.KnownNode(f.node) {
		return usagef("--node %s: no Node of that name in %s and no endpoint on it (nodes: %s)", apicheck.Show(f.node), name, firstFew(o.NodeNames(), 5))
	}
	for _, w := range o.Warnings {
		fmt.Fprintln(stderr, "svclab import: warning: "+w)
	}
	if line := o.IgnoredLine(); line != "" {
		fmt.Fprintln(stderr, "svclab import: "+line)
	}
	shape := o.Shape(f.node)
	var out bytes.Buffer
	if format.value != formatJSON {
		if err := shape.WriteText(&out); err != nil {
			return err
		}
	}
	if f.anonymize != "" {
		if err := writeAnonymized(f, o, &out); err != nil {
			return err
		}
	}
	if f.scenario != "" {
		if err := writeScenario(f, name, shape, &out); err != nil {
			return err
		}
	}
	if format.value == formatJSON {
		_, err = stderr.Write(out.Bytes())
		if err != nil {
			return err
		}
	}
	return printResult(stdout, format.value, "svclab import "+name, shape, func(w io.Writer) error {
		_, err := w.Write(out.Bytes())
		return err
	})
}

// firstFew lists up to n names, "…" for the rest ("none" for none).
func firstFew(names []string, n int) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) > n:
		return strings.Join(names[:n], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}

// readObjects reads a file, or stdin for "-", up to the objects size limit.
func readObjects(arg string) (string, []byte, error) {
	r, name := io.Reader(os.Stdin), "stdin"
	if arg != "-" {
		fh, err := os.Open(arg)
		if err != nil {
			return "", nil, &objects.Error{File: arg, Msg: "cannot read: " + err.Error(), Err: err}
		}
		defer fh.Close()
		r, name = fh, arg
	}
	raw, err := io.ReadAll(io.LimitReader(r, scenario.MaxObjectsFileSize+1))
	if err != nil {
		return "", nil, &objects.Error{File: name, Msg: "cannot read: " + err.Error(), Err: err}
	}
	if len(raw) > scenario.MaxObjectsFileSize {
		return "", nil, &objects.Error{File: name, Msg: fmt.Sprintf("more than %d MiB", scenario.MaxObjectsFileSize>>20)}
	}
	if raw, err = gunzipObjects(name, raw); err != nil {
		return "", nil, err
	}
	return name, raw, nil
}

// gunzipObjects decompresses gzipped objects (as svclab cluster audit's
// ConfigMap holds them); other bytes are returned as they are.
func gunzipObjects(name string, raw []byte) ([]byte, error) {
	if !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		return raw, nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, &objects.Error{File: name, Msg: "gzip: " + err.Error(), Err: err}
	}
	out, err := io.ReadAll(io.LimitReader(gz, scenario.MaxObjectsFileSize+1))
	if err != nil {
		return nil, &objects.Error{File: name, Msg: "gzip: " + err.Error(), Err: err}
	}
	if len(out) > scenario.MaxObjectsFileSize {
		return nil, &objects.Error{File: name, Msg: fmt.Sprintf("more than %d MiB once gunzipped", scenario.MaxObjectsFileSize>>20)}
	}
	return out, nil
}

func writeAnonymized(f importFlags, o *objects.Objects, out io.Writer) error {
	key := []byte(f.key)
	if f.key == "" {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	b.WriteString("# anonymised by svclab import: names hashed, addresses remapped\n")
	if err := objects.Encode(&b, objects.Anonymize(o, key)); err != nil {
		return err
	}
	if _, err := objects.Decode(f.anonymize, b.Bytes()); err != nil {
		return fmt.Errorf("the anonymised copy does not decode (a bug): %w", err)
	}
	if err := os.WriteFile(f.anonymize, b.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "\nwrote %s: the objects anonymised\n", f.anonymize)
	return err
}

// sweepCounts are the service counts the written scenario sweeps: the
// cluster's size, the scaled size, and one between (or below, when they
// are equal), each at least the sweep's three targets.
func sweepCounts(base, scaled int) []int {
	lo, hi := max(min(base, scaled), 3), max(base, scaled, 3)
	mid := (lo + hi) / 2
	if hi-lo < 2 {
		lo, mid = max(hi/4, 3), max(hi/2, 4)
	}
	out := []int{lo}
	for _, n := range []int{mid, hi} {
		if n > out[len(out)-1] {
			out = append(out, n)
		}
	}
	return out
}

// scaleLimit refuses a --scale whose n services the scenario loader does
// not take (err says why), with the largest count it does take: the real
// limit of this shape (node ports, address ranges, the services range).
func scaleLimit(scale float64, n, base int, err error, loads func(int) bool) error {
	lo, hi := 0, n // loads(lo) or lo == 0; !loads(hi)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; loads(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	why := err.Error()
	var fe *scenario.FieldError
	if errors.As(err, &fe) {
		why = fe.Msg
	}
	if lo == 0 {
		return fmt.Errorf("--scale %g: this shape makes no scenario that loads (a bug): %w", scale, err)
	}
	return usagef("--scale %g: %d services; this shape makes at most %d (--scale at most %g): %s", scale, n, lo, math.Floor(float64(lo)/float64(base)*1e4)/1e4, why)
}

func writeScenario(f importFlags, source string, shape objects.Shape, out io.Writer) error {
	base := shape.Proxied()
	if base == 0 {
		return usagef("--scenario: the cluster has no proxied services to scale")
	}
	n := int(math.Round(f.scale * float64(base)))
	if n < 1 {
		return usagef("--scale %g: %g × %d proxied services is no service (use --scale at least %.3g)", f.scale, f.scale, base, 0.5/float64(base))
	}
	name := strings.TrimSuffix(filepath.Base(f.scenario), filepath.Ext(f.scenario))
	text := func(n int) []byte {
		desc := fmt.Sprintf("the shape of %s (%d proxied services) at %g× its size, written by svclab import", filepath.Base(source), base, f.scale)
		var b bytes.Buffer
		if err := scenario.WriteMix(&b, name, desc, n, f.seed, shape.Mix(), sweepCounts(base, n)); err != nil {
			panic(err) // a strings.Builder and a bytes.Buffer do not fail
		}
		return b.Bytes()
	}
	b := bytes.NewBuffer(text(n))
	if _, err := scenario.Parse(f.scenario, b.Bytes()); err != nil {
		return scaleLimit(f.scale, n, base, err, func(n int) bool {
			_, err := scenario.Parse(f.scenario, text(n))
			return err == nil
		})
	}
	if err := os.WriteFile(f.scenario, b.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "wrote %s: %d synthetic services of this shape\n", f.scenario, n)
	return err
}
