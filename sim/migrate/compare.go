package migrate

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// Input is one migration to compare.
type Input struct {
	Model    *model.Model
	From, To Side
	Node     Node
	// Rules writes each side's rules (NativeRules, or kube-proxy's own
	// through SyncRules).
	Rules RulesSource
	// Sample is how many paths, drawn at random (seeded by SampleSeed)
	// whatever their outcome, Result.Sampled keeps for the kernel to check.
	Sample     int
	SampleSeed uint64
}

// Difference is one path whose outcome differs.
type Difference struct {
	Path   Path    `json:"path"`
	From   Outcome `json:"from"`
	To     Outcome `json:"to"`
	Change string  `json:"change"`
}

// Result is a whole comparison.
type Result struct {
	From, To    Side
	Services    int
	Paths       int
	Differences []Difference
	Classes     []Class
	// Notes say what was not compared, and why.
	Notes []string
	// Controls are a few paths both sides treat the same, one of each
	// kind and family (VerifyProbes' controls).
	Controls []Difference
	// Sampled are Input.Sample paths drawn at random, with both outcomes.
	Sampled []Difference
	// Model is the compared model, with the node's addresses (what
	// --verify programs into the lab's node); Node the node's other
	// addresses the paths used.
	Model *model.Model
	Node  Node
	// Verification is the kernel's verdict on each class (--verify).
	Verification *Verification
	// Cost is what each side costs (CostsOf; nil: not asked).
	Cost *Costs
}

// sideRules is one side and the oracle of its rules (every family's).
type sideRules struct {
	side   Side
	oracle *route.Oracle
}

// Compare routes every path of in.Model on both sides and classifies the
// differences.
func Compare(in Input) (*Result, error) {
	in.From, in.To = in.From.Effective(), in.To.Effective()
	m, notes := withNodeAddrs(in.Model)
	m.Services = model.Materialize(m.Services)
	in.Model = m
	var from, to *sideRules
	err := both(
		func() (err error) { from, err = loadSide(in, in.From); return wrapSide("--from", in.From, err) },
		func() (err error) { to, err = loadSide(in, in.To); return wrapSide("--to", in.To, err) })
	if err != nil {
		return nil, err
	}
	res := &Result{From: in.From, To: in.To, Services: in.Model.Services.Len(), Notes: notes, Model: in.Model}
	if len(in.Node.Other) > 0 && (in.From.Mode == dataplane.ModeIPVS || in.To.Mode == dataplane.ModeIPVS) {
		in.Node.Other = nil
		res.Notes = append(res.Notes, "NodePorts on the node's other addresses are not compared under IPVS: kube-proxy's IPVS mode binds them to the addresses it finds on the node's interfaces, which the rules here are not written for")
	}
	paths := Paths(in.Model, in.Node)
	res.Paths, res.Node = len(paths), in.Node
	var before, after []Outcome
	err = both(
		func() (err error) { before, err = routeAll(from, paths); return wrapSide("--from", in.From, err) },
		func() (err error) { after, err = routeAll(to, paths); return wrapSide("--to", in.To, err) })
	if err != nil {
		return nil, err
	}
	for i, p := range paths {
		if c := Change(before[i], after[i]); c != "" {
			res.Differences = append(res.Differences, Difference{Path: p, From: before[i], To: after[i], Change: c})
		}
	}
	res.Controls = controls(paths, before, after)
	res.Sampled = sample(paths, before, after, in.Sample, in.SampleSeed)
	if res.Classes, err = classify(res.Differences, from, to); err != nil {
		return nil, err
	}
	return res, nil
}

// routeAll routes every path through one side's rules.
func routeAll(sr *sideRules, paths []Path) ([]Outcome, error) {
	out := make([]Outcome, len(paths))
	for i, p := range paths {
		a, err := sr.oracle.Route(p.Query)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out[i] = outcomeOf(a, p.Query)
	}
	return out, nil
}

// both runs f and g at once (one side each: the machine's cores share
// the work) and returns the first error.
func both(f, g func() error) error {
	errs := make(chan error, 1)
	go func() { errs <- f() }()
	gErr := g()
	if fErr := <-errs; fErr != nil {
		return fErr
	}
	return gErr
}

func wrapSide(flag string, s Side, err error) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, s, err)
	}
	return nil
}

// loadSide writes and compiles one side's rules for every family of the
// model's services.
func loadSide(in Input, side Side) (*sideRules, error) {
	sr := &sideRules{side: side}
	var rules []route.FamilyRules
	for _, f := range model.Families(in.Model.Services) {
		m := *in.Model
		m.Family = f
		d, err := in.Rules(side, &m)
		if err != nil {
			return nil, fmt.Errorf("the %s rules: %w", f, err)
		}
		rules = append(rules, route.FamilyRules{Family: f, Rules: d, Node: m.Cluster.ForFamily(f).NodeIP, Local: in.Node.Other})
	}
	o, err := route.FromRules(rules...)
	if err != nil {
		return nil, err
	}
	sr.oracle = o
	return sr, nil
}

// DefaultNodeIP and DefaultNodeIPv6 are the node's addresses when the
// objects give none (no Node object with an InternalIP).
var (
	DefaultNodeIP   = netip.MustParseAddr("192.168.99.1")
	DefaultNodeIPv6 = netip.MustParseAddr("fd00:99::1")
)

// withNodeAddrs returns m with the node's addresses of each family its
// services use, defaulted where the objects give none.
func withNodeAddrs(m *model.Model) (*model.Model, []string) {
	var notes []string
	c := m.Cluster
	fams := model.Families(m.Services)
	if slices.Contains(fams, model.IPv4) && !c.NodeIP.Is4() {
		if c.NodeIP.Is6() && !c.NodeIPv6.IsValid() {
			c.NodeIPv6 = c.NodeIP
		}
		c.NodeIP = DefaultNodeIP
		notes = append(notes, fmt.Sprintf("the objects give node %s no IPv4 address: the paths use %s", c.NodeName, DefaultNodeIP))
	}
	if slices.Contains(fams, model.IPv6) && !c.NodeIPv6.IsValid() && !c.NodeIP.Is6() {
		c.NodeIPv6 = DefaultNodeIPv6
		notes = append(notes, fmt.Sprintf("the objects give node %s no IPv6 address: the paths use %s", c.NodeName, DefaultNodeIPv6))
	}
	out := *m
	out.Cluster = c
	return &out, notes
}
