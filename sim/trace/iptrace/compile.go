package iptrace

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
)

// The tables the tracer walks.
const (
	tableNat = iota
	tableFilter
	tableRaw
	tableMangle
	tableSecurity
	numTables
)

var tableNames = [numTables]string{"nat", "filter", "raw", "mangle", "security"}

// indexMinRules is the chain length from which the tracer indexes a chain's
// rules by destination address.
const indexMinRules = 8

// IPTablesTracer walks packets through an iptables dump compiled into an
// indexed form: chains resolved to indexes, matches pre-parsed, long chains
// indexed by destination address. It is safe for concurrent use.
type IPTablesTracer struct {
	tables      [numTables]*compiledTable // nil when the dump lacks the table
	local       map[netip.Addr]struct{}
	sets        ipvs.IPSets // nil: set contents unknown
	missing     string      // "" or why the verdict cannot be known (a table the path needs is absent)
	recentHits  map[string]bool
	maxBranches int
	skipPaths   bool
	hookChain   [stageDone]int32     // chain index of each stage's built-in chain
	notes       []string             // from compilation; added to every trace
	steps       []stepTmpl           // every rule's Step template, chain after chain (see compiledChain.stepBase)
	skipTo      [stageDone + 1]stage // the first stage from here the walk must look at (see nextStage)
	ifaces      bool                 // some rule has -i or -o (else the walk need not track interfaces)
	memoOK      [stageDone]bool      // the stage's walk can be memoized (see memoKey)
	memo        *memoTable
	scratch     sync.Pool
}

// compiledTable is one table's chains.
type compiledTable struct {
	name   string
	id     uint8
	chains []compiledChain
	byName map[string]int32
	// services are the service ports the table's KUBE-SERVICES and
	// KUBE-NODEPORTS jumps name (compiledRule.service), each once.
	services  []string
	serviceID map[string]int32
	// slab holds the rules of every chain compileTable made, chain after
	// chain in the dump's order; slabAt is where each chain's rules start
	// in it (-1: elsewhere), aheads each chain's look-ahead (see aheadBlock).
	slab   []compiledRule
	slabAt []int32
	aheads []aheadBlock
	// addrTypes lists, for each chain, the rules with an addrtype match in
	// rule order (nil when no rule of the table has one): a walk counts the
	// ones it passes (outcome.addrTypes) without evaluating them.
	addrTypes [][]int32
}

// service returns 1 + the index of name in ct.services, adding it.
func (ct *compiledTable) service(name string) int32 {
	if id, ok := ct.serviceID[name]; ok {
		return id
	}
	if ct.serviceID == nil {
		ct.serviceID = map[string]int32{}
	}
	ct.services = append(ct.services, name)
	id := int32(len(ct.services))
	ct.serviceID[name] = id
	return id
}

// serviceName is the name of a compiledRule.service of the nat table.
func (t *IPTablesTracer) serviceName(id int32) string {
	if id == 0 {
		return ""
	}
	return t.tables[tableNat].services[id-1]
}

// compiledChain is a chain's rules, with a destination index when long.
// What the walk reads comes first; the struct is one cache line.
type compiledChain struct {
	rules    []compiledRule
	index    *dstIndex
	stepBase uint32 // index of the first rule's Step template in the tracer's steps
	// policyDrop is the built-in chain policy DROP (else ACCEPT).
	policyDrop bool
	// policyKept is a built-in chain declared with "-" (restore input: the
	// policy it had is kept); it is taken as ACCEPT and noted.
	policyKept bool
	// fans is a short chain with statistic rules (a kube-proxy service's
	// chain): its branches each jump to another chain (see aheadBlock).
	fans bool
	name string
	_    [7]byte
}

// stepTmpl is what a path Step takes from its rule, in 32 bytes (two a
// cache line, against one for a whole Step): a packet's path crosses a
// dozen rules of its own service, whose templates are not in the cache.
type stepTmpl struct {
	rule  string  // the rule line
	chain *string // the chain's name: compiledChain.name, which the walk has just read
	index int32   // the 1-based position in the chain
	table uint8
}

// NewIPTablesTracer compiles d's raw, mangle, nat, filter and security
// tables. A missing raw, mangle or security table is taken as empty (an
// iptables-save of the whole ruleset omits a table nothing created); a
// missing nat or filter table makes every verdict unknown. When the dump lacks
// a built-in chain the walk needs (restore input from kube-proxy never
// contains them), the tracer assumes kube-proxy's own jump rules
// (iptablesJumpChains) and says so in every trace's Flags. A jump loop is an
// error; a jump to a chain the dump lacks (a partial restore) is not: such a
// chain is treated as empty and flagged when a packet reaches it.
func NewIPTablesTracer(d *iptables.Dump, opts Options) (*IPTablesTracer, error) {
	return newIPTablesTracer(d, opts, indexMinRules)
}

// newIPTablesTracer compiles d, indexing chains of at least indexMin rules.
func newIPTablesTracer(d *iptables.Dump, opts Options, indexMin int) (*IPTablesTracer, error) {
	t := &IPTablesTracer{
		local:       make(map[netip.Addr]struct{}, len(opts.LocalAddrs)),
		recentHits:  make(map[string]bool, len(opts.RecentHits)),
		sets:        opts.IPSets,
		maxBranches: opts.MaxBranches,
		skipPaths:   opts.SkipPaths,
	}
	if t.maxBranches <= 0 {
		t.maxBranches = 4096
	}
	for _, a := range opts.LocalAddrs {
		t.local[a.Unmap()] = struct{}{}
	}
	for _, n := range opts.RecentHits {
		t.recentHits[n] = true
	}
	var assumed, absent []string
	for id, name := range tableNames {
		src := d.Table(name)
		if src == nil {
			if id == tableNat || id == tableFilter {
				absent = append(absent, name)
			}
			continue
		}
		if loop := iptables.FindJumpLoop(src); loop != nil {
			return nil, jumpLoopError(src, loop)
		}
		ct, err := compileTable(src, uint8(id), indexMin)
		if err != nil {
			return nil, err
		}
		t.tables[id] = ct
		assumed = append(assumed, addKubeJumps(ct)...)
		ct.setAheads()
	}
	for st, hook := range stageHooks {
		t.hookChain[st] = -1
		if tbl := t.tables[hook.table]; tbl != nil {
			t.hookChain[st] = tbl.chain(hook.chain)
		}
	}
	t.gatherSteps()
	t.setSkips()
	t.memo = new(memoTable)
	t.setMemo()
	t.ifaces = t.anyRule(func(r *compiledRule) bool { return r.checks&checkIface != 0 })
	if len(absent) > 0 {
		t.missing = fmt.Sprintf("the dump has no %s table (made with iptables-save -t, or cut short?); "+
			"every packet crosses it, so the verdict is unknown", strings.Join(absent, " or "))
	}
	if len(assumed) > 0 {
		t.notes = append(t.notes, "built-in chains missing from the dump; assumed kube-proxy's jump rules: "+strings.Join(assumed, "; "))
	}
	t.scratch.New = func() any { return new(scratch) }
	return t, nil
}

// gatherSteps makes every rule's Step template, table after table and
// chain after chain, in one slab, so that a path step is a 32-bit index
// into it. It runs once the tables have all their chains.
func (t *IPTablesTracer) gatherSteps() {
	n := 0
	for _, tbl := range t.tables {
		for i := range tableChains(tbl) {
			n += len(tbl.chains[i].rules)
		}
	}
	t.steps = make([]stepTmpl, 0, n)
	for _, tbl := range t.tables {
		for i := range tableChains(tbl) {
			c := &tbl.chains[i]
			c.stepBase = uint32(len(t.steps))
			for j := range c.rules {
				t.steps = append(t.steps, stepTmpl{rule: c.rules[j].src0.String(), chain: &c.name, index: int32(j + 1), table: tbl.id})
			}
		}
	}
}

// tableChains is tbl's chains, none if tbl is nil.
func tableChains(tbl *compiledTable) []compiledChain {
	if tbl == nil {
		return nil
	}
	return tbl.chains
}

// anyRule reports whether some rule of the ruleset satisfies f.
func (t *IPTablesTracer) anyRule(f func(*compiledRule) bool) bool {
	for _, tbl := range t.tables {
		if tbl == nil {
			continue
		}
		for i := range tbl.chains {
			for j := range tbl.chains[i].rules {
				if f(&tbl.chains[i].rules[j]) {
					return true
				}
			}
		}
	}
	return false
}

func compileTable(src *iptables.Table, id uint8, indexMin int) (*compiledTable, error) {
	ct := &compiledTable{name: src.Name, id: id, byName: make(map[string]int32, len(src.Chains))}
	for _, c := range src.Chains {
		if !c.Deleted {
			ct.byName[c.Name] = int32(len(ct.byName))
		}
	}
	ct.chains = make([]compiledChain, 0, len(ct.byName))
	slab := make([]compiledRule, src.RuleCount()) // one allocation, rules in chain order
	ct.slab = slab
	extras := make([]ruleExtra, len(slab))
	for i := range slab {
		slab[i].ruleExtra = &extras[i]
	}
	for _, c := range src.Chains {
		if c.Deleted {
			continue
		}
		cc := compiledChain{name: c.Name, policyDrop: Verdict(c.Policy) == Drop, rules: slab[:len(c.Rules):len(c.Rules)]}
		cc.policyKept = c.Policy == "-" && iptables.IsBuiltinChain(src.Name, c.Name)
		ct.slabAt = append(ct.slabAt, int32(len(ct.slab)-len(slab)))
		slab = slab[len(c.Rules):]
		for i, r := range c.Rules {
			if err := compileRule(&cc.rules[i], r, ct); err != nil {
				return nil, fmt.Errorf("compile rule %d of %s %s: %w", i+1, src.Name, c.Name, err)
			}
		}
		if len(cc.rules) >= indexMin {
			cc.index = buildDstIndex(cc.rules)
		}
		cc.fans = cc.index == nil && slices.ContainsFunc(cc.rules, func(r compiledRule) bool { return r.flags&flagStatRandom != 0 })
		ct.chains = append(ct.chains, cc)
		ct.noteAddrTypes(cc.rules)
	}
	return ct, nil
}

// noteAddrTypes appends to ct.addrTypes the addrtype rules of the chain
// just compiled (rules), allocating the list at the first chain with one.
func (ct *compiledTable) noteAddrTypes(rules []compiledRule) {
	var at []int32
	for i := range rules {
		if rules[i].checks&checkAddrType != 0 || len(rules[i].moreAddrTypes) > 0 {
			at = append(at, int32(i))
		}
	}
	if at != nil && ct.addrTypes == nil {
		ct.addrTypes = make([][]int32, len(ct.chains)-1, cap(ct.chains))
	}
	if ct.addrTypes != nil {
		ct.addrTypes = append(ct.addrTypes, at)
	}
}

// addrTypesOf is chain c's addrtype rules, nil if none.
func (ct *compiledTable) addrTypesOf(c int32) []int32 {
	if int(c) >= len(ct.addrTypes) {
		return nil
	}
	return ct.addrTypes[c]
}

// chain returns the index of the named chain, or -1.
func (ct *compiledTable) chain(name string) int32 {
	if i, ok := ct.byName[name]; ok {
		return i
	}
	return -1
}

// TraceIPTables compiles d and traces one packet through it. To trace many
// packets, compile once with NewIPTablesTracer.
func TraceIPTables(d *iptables.Dump, p trace.Packet, opts Options) (Trace, error) {
	t, err := NewIPTablesTracer(d, opts)
	if err != nil {
		return Trace{}, err
	}
	return t.Trace(p)
}

// jumpLoopError names a jump loop and the line of the rule that closes it
// (the kernel refuses to load such a table).
func jumpLoopError(t *iptables.Table, loop []string) error {
	from, to := loop[len(loop)-2], loop[len(loop)-1]
	if c := t.Chain(from); c != nil {
		for _, r := range c.Rules {
			if r.Jumps() && r.Target == to && r.Line > 0 {
				return fmt.Errorf("line %d: jump loop %s in table %s (the kernel refuses it)", r.Line, strings.Join(loop, " -> "), t.Name)
			}
		}
	}
	return fmt.Errorf("jump loop %s in table %s (the kernel refuses it)", strings.Join(loop, " -> "), t.Name)
}

// WithPaths returns a tracer over the same compiled rules that keeps each
// trace's path, whatever t's Options.SkipPaths: a tracer built for bulk
// use can then explain a few answers without compiling the rules again.
// It has its own stage memo (a memoized stage replays its steps).
func (t *IPTablesTracer) WithPaths() *IPTablesTracer {
	if !t.skipPaths {
		return t
	}
	w := &IPTablesTracer{tables: t.tables, local: t.local, sets: t.sets, missing: t.missing, recentHits: t.recentHits,
		maxBranches: t.maxBranches, hookChain: t.hookChain, notes: t.notes, steps: t.steps, skipTo: t.skipTo,
		ifaces: t.ifaces, memoOK: t.memoOK, memo: new(memoTable)}
	w.scratch.New = func() any { return new(scratch) }
	return w
}
