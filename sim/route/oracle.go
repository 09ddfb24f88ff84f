package route

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/trace"
)

// Origin is where a connection's first packet meets the node's rules.
type Origin int

// The origins.
const (
	// FromPod is a pod on the node, or a client beyond the node's uplink
	// (the external client): the packet crosses PREROUTING.
	FromPod Origin = iota
	// FromNode is a process in the node's own network namespace: the
	// packet crosses OUTPUT.
	FromNode
)

// Query is one connection to route.
type Query struct {
	// Dst is the address connected to: a ClusterIP, a node address at a
	// NodePort, a load-balancer or external IP, with the service port.
	Dst   netip.AddrPort
	Proto model.Protocol // "" is TCP
	From  Origin
	// Src is the client's address; zero from the node: the node's address
	// of Dst's family.
	Src netip.Addr
}

// Endpoint is one endpoint a connection can reach.
type Endpoint struct {
	Addr netip.AddrPort
	// Probability is the chance a new connection reaches it, as the rules
	// write it (the statistic cascade, numgen, the IPVS scheduler).
	Probability float64
	// Seen is the source address the endpoint sees: the node's when the
	// rules masquerade the connection, the client's otherwise.
	Seen netip.Addr
}

// Answer is where a connection goes.
type Answer struct {
	// Endpoints are those the rules send the connection to and let
	// through, sorted by address.
	Endpoints []Endpoint
	// Dropped is true when no endpoint is reached: the rules drop or
	// reject the connection, or send it nowhere.
	Dropped bool
	// Verdict is the tracer's verdict (ACCEPT, DROP, REJECT, MIXED).
	Verdict string
	// Service is the service port the rules matched ("ns/name:port"), ""
	// when none.
	Service string
	// Notes are the tracer's remarks on the path (ClientIP affinity or
	// IPVS persistence met, assumptions made), as sim/analyze words them.
	Notes []string
	// Path is the rules the packet met, in order, when the oracle keeps
	// paths (FamilyRules.KeepPaths); nil otherwise.
	Path []string
}

// Addrs returns the endpoints' "IP:port" strings, in order.
func (a Answer) Addrs() []string {
	out := make([]string, len(a.Endpoints))
	for i, e := range a.Endpoints {
		out[i] = e.Addr.String()
	}
	return out
}

// Oracle answers queries by tracing one node's rules; build it once per
// model and mode, then route many connections. It is not safe for
// concurrent use.
type Oracle struct {
	families [2]*familyRules
}

// familyRules is one family's compiled rules and the node's address;
// explainer is the same rules' tracer that keeps paths (Explain), made
// on first use.
type familyRules struct {
	tracer    analyze.Tracer
	node      netip.Addr
	dump      *analyze.Dump
	opts      analyze.Options
	explainer analyze.Tracer
}

// FamilyRules is one family's loaded rules (a proxier's state) and the
// node's address of that family.
type FamilyRules struct {
	Family model.Family
	Rules  *analyze.Dump
	Node   netip.Addr
	// Local are the node's other local addresses (a second interface's),
	// for the rules' "destination is local" matches; loopback is always
	// local.
	Local []netip.Addr
	// KeepPaths keeps each trace's rule-by-rule path in Answer.Path
	// (slower: for explaining a few answers, not for bulk use).
	KeepPaths bool
}

// New renders m as cfg's kube-proxy writes it, one proxier per family of
// m's services, and compiles the rules for tracing.
func New(m *model.Model, cfg Config) (*Oracle, error) {
	var rules []FamilyRules
	for _, f := range model.Families(m.Services) {
		mf := model.ForFamily(*m, f)
		d, err := Rules(&mf, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		rules = append(rules, FamilyRules{Family: f, Rules: d, Node: mf.Cluster.NodeIP})
	}
	return FromRules(rules...)
}

// FromRules compiles rules loaded elsewhere (a fake dataplane's validated
// state). The node's addresses are its local addresses for every family.
func FromRules(rules ...FamilyRules) (*Oracle, error) {
	var local []netip.Addr
	for _, r := range rules {
		if r.Node.IsValid() {
			local = append(local, r.Node)
		}
		local = append(local, r.Local...)
	}
	o := &Oracle{}
	for _, r := range rules {
		if r.Family != model.IPv4 && r.Family != model.IPv6 {
			return nil, fmt.Errorf("route: rules of unknown family %d", r.Family)
		}
		opts := analyze.Options{Local: local, SkipPaths: !r.KeepPaths}
		tr, err := analyze.NewTracer(r.Rules, opts)
		if err != nil {
			return nil, fmt.Errorf("route: compile the %s rules: %w", r.Family, err)
		}
		o.families[r.Family] = &familyRules{tracer: tr, node: r.Node, dump: r.Rules, opts: opts}
	}
	return o, nil
}

// Route traces q's first packet.
func (o *Oracle) Route(q Query) (Answer, error) {
	fr := o.families[model.FamilyOf(q.Dst.Addr())]
	if fr == nil {
		return Answer{Dropped: true}, nil // no proxier of the family: no rules, no service
	}
	return fr.route(fr.tracer, q)
}

// Explain traces q's first packet as Route does, keeping the rules it met
// in Answer.Path whatever FamilyRules.KeepPaths said: the compiled rules
// are shared (compiled again only where they cannot be: sim/analyze's
// Tracer.WithPaths), so a bulk oracle explains a few answers cheaply.
func (o *Oracle) Explain(q Query) (Answer, error) {
	fr := o.families[model.FamilyOf(q.Dst.Addr())]
	if fr == nil {
		return Answer{Dropped: true}, nil
	}
	if fr.explainer == nil {
		tr, ok := fr.tracer.WithPaths()
		if !ok {
			opts := fr.opts
			opts.SkipPaths = false
			var err error
			if tr, err = analyze.NewTracer(fr.dump, opts); err != nil {
				return Answer{}, fmt.Errorf("route: compile the rules with paths: %w", err)
			}
		}
		fr.explainer = tr
	}
	return fr.route(fr.explainer, q)
}

// route traces q with tr, one of fr's tracers.
func (fr *familyRules) route(tr analyze.Tracer, q Query) (Answer, error) {
	src := q.Src
	if !src.IsValid() {
		src = fr.node
	}
	proto := strings.ToLower(string(q.Proto))
	if proto == "" {
		proto = "tcp"
	}
	p := trace.Packet{Src: src, Dst: q.Dst.Addr(), DPort: q.Dst.Port(), Proto: proto, From: "pod"}
	if q.From == FromNode {
		p.From = "node"
	}
	r, err := tr.Trace(p)
	if err != nil {
		return Answer{}, fmt.Errorf("route %s: %w", p.Dst, err)
	}
	if strings.EqualFold(r.Verdict, "unknown") {
		return Answer{}, fmt.Errorf("route %s %s → %s: the rules' verdict depends on %s (%s)", proto, src, q.Dst,
			strings.Join(r.Undecided, "; "), strings.Join(r.Flags, "; "))
	}
	return answerOf(r, src, fr.node), nil
}

// answerOf keeps the endpoints the filter chains accept.
func answerOf(r analyze.Result, src, node netip.Addr) Answer {
	a := Answer{Verdict: r.Verdict, Service: r.Service, Notes: r.Flags, Path: r.Path}
	for _, e := range r.Endpoints {
		if e.Verdict != "" && !strings.EqualFold(e.Verdict, "ACCEPT") {
			continue
		}
		ep := Endpoint{Addr: netip.MustParseAddrPort(e.Endpoint), Probability: e.Probability, Seen: src}
		if e.Masquerade {
			ep.Seen = node
		}
		a.Endpoints = append(a.Endpoints, ep)
	}
	slices.SortFunc(a.Endpoints, func(x, y Endpoint) int { return strings.Compare(x.Addr.String(), y.Addr.String()) })
	a.Dropped = len(a.Endpoints) == 0
	return a
}
