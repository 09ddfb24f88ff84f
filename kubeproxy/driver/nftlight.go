package driver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/knftables"
)

// lightNFT is a record-only knftables interface for render mode at scale.
// knftables' Fake validates every operation and searches elements
// linearly (a 10,000-service full sync takes minutes in it); lightNFT
// only keeps what kube-proxy lists back between syncs (the names of
// chains, sets and maps, and the elements of sets and maps), taken from
// each transaction's text. Rules are not kept: kube-proxy never lists them.
type lightNFT struct {
	ctx      knftables.Interface // a Fake, only for NewTransaction's table context
	family   knftables.Family
	objects  map[string]map[string]bool
	elements map[string]map[string]*knftables.Element
}

func newLightNFT(family knftables.Family) *lightNFT {
	return &lightNFT{
		ctx:      knftables.NewFake(family, "kube-proxy"),
		family:   family,
		objects:  map[string]map[string]bool{"chain": {}, "set": {}, "map": {}, "counter": {}},
		elements: map[string]map[string]*knftables.Element{},
	}
}

// NewTransaction returns a transaction on table FAMILY kube-proxy.
func (l *lightNFT) NewTransaction() *knftables.Transaction { return l.ctx.NewTransaction() }

// Run applies tx's text to the kept names and elements.
func (l *lightNFT) Run(_ context.Context, tx *knftables.Transaction) error {
	text := tx.String()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# ERROR: ") {
			return fmt.Errorf("%s", strings.TrimPrefix(line, "# ERROR: "))
		}
		l.apply(line)
	}
	return nil
}

// Check accepts every transaction.
func (l *lightNFT) Check(context.Context, *knftables.Transaction) error { return nil }

func (l *lightNFT) apply(line string) {
	w := strings.SplitN(line, " ", 6) // verb kind family table name rest
	if len(w) < 5 || w[1] == "table" || w[1] == "rule" {
		if len(w) >= 2 && w[0] == "delete" && w[1] == "table" {
			*l = *newLightNFT(l.family)
		}
		return
	}
	verb, kind, name := w[0], w[1], w[4]
	switch {
	case kind == "element":
		l.element(verb, name, w[5])
	case verb == "add" || verb == "create":
		l.objects[kind][name] = true
	case verb == "delete" || verb == "destroy":
		delete(l.objects[kind], name)
		delete(l.elements, name)
	case verb == "flush" && kind != "chain":
		delete(l.elements, name)
	}
}

// element applies "{ KEY [comment "…"] [: VALUE] }" to set or map name.
func (l *lightNFT) element(verb, name, rest string) {
	body := strings.TrimSuffix(strings.TrimPrefix(rest, "{ "), " }")
	key, value, _ := strings.Cut(body, " : ")
	if i := strings.Index(key, " comment "); i >= 0 {
		key = key[:i]
	}
	m := l.elements[name]
	if m == nil {
		m = map[string]*knftables.Element{}
		l.elements[name] = m
	}
	if verb == "delete" || verb == "destroy" {
		delete(m, key)
		return
	}
	if _, ok := m[key]; ok {
		return
	}
	e := &knftables.Element{Key: strings.Split(key, " . ")}
	if value != "" {
		e.Value = strings.Split(value, " . ")
	}
	m[key] = e
}

// List returns the names of the objects of one type ("chain", "chains",
// "set", "sets", "map", "maps").
func (l *lightNFT) List(_ context.Context, objectType string) ([]string, error) {
	kind := strings.TrimSuffix(objectType, "s")
	objs, ok := l.objects[kind]
	if !ok {
		return nil, fmt.Errorf("list %s: unsupported object type", objectType)
	}
	out := make([]string, 0, len(objs))
	for n := range objs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// ListAll returns every kept object's name by type.
func (l *lightNFT) ListAll(ctx context.Context) (map[string][]string, error) {
	out := map[string][]string{}
	for kind := range l.objects {
		names, _ := l.List(ctx, kind)
		if len(names) > 0 {
			out[kind] = names
		}
	}
	return out, nil
}

// ListElements returns the elements of set or map name.
func (l *lightNFT) ListElements(_ context.Context, objectType, name string) ([]*knftables.Element, error) {
	if !l.objects[objectType][name] {
		return nil, knftablesNotFound(objectType, name)
	}
	out := make([]*knftables.Element, 0, len(l.elements[name]))
	for _, e := range l.elements[name] {
		c := *e
		if objectType == "set" {
			c.Set = name
		} else {
			c.Map = name
		}
		out = append(out, &c)
	}
	return out, nil
}

// ListRules is not used by kube-proxy's sync.
func (l *lightNFT) ListRules(context.Context, string) ([]*knftables.Rule, error) {
	return nil, fmt.Errorf("list rules: not kept by the render-mode nftables recorder")
}

// ListCounters returns no counters.
func (l *lightNFT) ListCounters(context.Context) ([]*knftables.Counter, error) { return nil, nil }

// knftablesNotFound is the error knftables returns for a missing object,
// which kube-proxy tests with knftables.IsNotFound.
func knftablesNotFound(kind, name string) error {
	_, err := knftables.NewFake(knftables.IPv4Family, "kube-proxy").ListElements(context.Background(), kind, name)
	if err == nil {
		err = fmt.Errorf("no such %s %q", kind, name)
	}
	return err
}
