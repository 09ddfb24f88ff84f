package nfttrace

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/nftables"
)

// Program is a ruleset compiled for tracing. It is safe for concurrent use.
type Program struct {
	hooks    map[string][]*cchain // base chains per hook, by priority
	local    map[netip.Addr]bool
	skipPath bool
}

// cchain is a compiled chain.
type cchain struct {
	name   string
	table  string // "inet filter"
	family string // "ip", "ip6" or "inet": the packets its hooks see
	typ    string // "nat", "filter", "" for regular chains
	policy string
	rules  []*crule
	ext    *External // a base chain another tracer walks
}

// crule is a compiled rule.
type crule struct {
	index int
	line  int
	text  string
	ops   []op
}

// compiler holds the name tables while one table is compiled.
type compiler struct {
	chains map[string]*cchain
	sets   map[string]*cset
}

// Compile prepares rs for tracing. Only ip and inet tables take part.
func Compile(rs *nftables.Ruleset, opts Options) (*Program, error) {
	p := &Program{hooks: map[string][]*cchain{}, local: map[netip.Addr]bool{}, skipPath: opts.SkipPath}
	for _, a := range opts.LocalAddrs {
		p.local[a.Unmap()] = true
	}
	type prio struct {
		c    *cchain
		prio int
	}
	byHook := map[string][]prio{}
	for _, t := range rs.Tables {
		if t.Family != "ip" && t.Family != "ip6" && t.Family != "inet" {
			continue
		}
		c, err := compileTable(t)
		if err != nil {
			return nil, err
		}
		for _, ch := range t.Chains {
			if ch.IsBase() {
				byHook[ch.Hook] = append(byHook[ch.Hook], prio{c.chains[ch.Name], ch.Priority})
			}
		}
	}
	for i := range opts.External {
		x := &opts.External[i]
		typ := "filter"
		if x.NAT {
			typ = "nat"
		}
		c := &cchain{name: x.Chain, table: x.Table, family: x.Family, typ: typ, policy: "accept", ext: x}
		byHook[x.Hook] = append(byHook[x.Hook], prio{c, x.Priority})
	}
	for hook, list := range byHook {
		sort.SliceStable(list, func(i, j int) bool { return list[i].prio < list[j].prio })
		for _, x := range list {
			p.hooks[hook] = append(p.hooks[hook], x.c)
		}
	}
	return p, nil
}

// compileTable compiles one table's chains and sets.
func compileTable(t *nftables.Table) (*compiler, error) {
	c := &compiler{chains: map[string]*cchain{}, sets: map[string]*cset{}}
	for _, ch := range t.Chains {
		c.chains[ch.Name] = &cchain{name: ch.Name, table: t.Family + " " + t.Name, family: t.Family, typ: ch.Type, policy: ch.Policy}
	}
	for _, s := range t.Sets {
		cs, err := compileSet(s, c.chains)
		if err != nil {
			return nil, fmt.Errorf("compile table %s %s: %w", t.Family, t.Name, err)
		}
		c.sets[s.Name] = cs
	}
	for _, ch := range t.Chains {
		cc := c.chains[ch.Name]
		for i, r := range ch.Rules {
			cr := &crule{index: i, line: r.Line, text: r.Text()}
			for _, x := range r.Exprs {
				cr.ops = append(cr.ops, protoDependency(x)...)
				o, err := c.compileExpr(x)
				if err != nil {
					return nil, fmt.Errorf("compile table %s %s: chain %s, line %d: %w", t.Family, t.Name, ch.Name, r.Line, err)
				}
				cr.ops = append(cr.ops, o)
			}
			cc.rules = append(cc.rules, cr)
		}
	}
	return c, nil
}

// isLocal reports whether a is one of the node's addresses.
func (p *Program) isLocal(a netip.Addr) bool {
	return p.local[a] || a.IsLoopback()
}

// protoDependency is the protocol match nft adds before "tcp dport …"
// (and udp, sctp): such a selector only matches packets of its protocol.
func protoDependency(x nftables.Expr) []op {
	var sels []nftables.Selector
	switch e := x.(type) {
	case nftables.Match:
		sels = e.Left
	case nftables.VerdictMap:
		sels = e.Key
	}
	for _, s := range sels {
		proto, _, _ := strings.Cut(string(s), " ")
		if n, err := protoNumber(proto); err == nil && proto != "th" {
			return []op{{kind: opMatchProto, field: fieldProto, protos: []uint8{n}}}
		}
	}
	return nil
}

// WithPaths returns a program over the same compiled rules that keeps
// each trace's path, whatever p's Options.SkipPath, and true; false when
// p has External chains, whose tracers were built without paths.
func (p *Program) WithPaths() (*Program, bool) {
	if !p.skipPath {
		return p, true
	}
	for _, chains := range p.hooks {
		for _, c := range chains {
			if c.ext != nil {
				return nil, false
			}
		}
	}
	q := *p
	q.skipPath = false
	return &q, true
}
