package iptrace

import (
	"errors"
	"fmt"
	"net/netip"
)

// maxDepth is the deepest chain nesting the tracer follows.
const maxDepth = 16

// stage is one place a packet crosses: a table's built-in chain at a hook.
type stage uint8

// The stages, grouped by hook; within a hook in the kernel's priority order
// (raw -300, conntrack -200, mangle -150, nat DNAT -100, filter 0, security
// 50, nat SNAT 100).
const (
	stageRawPrerouting stage = iota
	stageManglePrerouting
	stageNatPrerouting
	stageMangleInput
	stageFilterInput
	stageSecurityInput
	stageNatInput
	stageMangleForward
	stageFilterForward
	stageSecurityForward
	stageRawOutput
	stageMangleOutput
	stageNatOutput
	stageFilterOutput
	stageSecurityOutput
	stageManglePostrouting
	stageNatPostrouting
	stageDone
)

var stageHooks = [stageDone]struct {
	table int
	chain string
}{
	{tableRaw, "PREROUTING"}, {tableMangle, "PREROUTING"}, {tableNat, "PREROUTING"},
	{tableMangle, "INPUT"}, {tableFilter, "INPUT"}, {tableSecurity, "INPUT"}, {tableNat, "INPUT"},
	{tableMangle, "FORWARD"}, {tableFilter, "FORWARD"}, {tableSecurity, "FORWARD"},
	{tableRaw, "OUTPUT"}, {tableMangle, "OUTPUT"}, {tableNat, "OUTPUT"}, {tableFilter, "OUTPUT"}, {tableSecurity, "OUTPUT"},
	{tableMangle, "POSTROUTING"}, {tableNat, "POSTROUTING"},
}

// frame is a position in a chain on the jump stack.
type frame struct {
	chain int32
	pos   int32 // next rule to look at
}

// branch is one path of a packet through the rules; a statistic rule, or a
// match the tracer cannot decide, splits a branch in two.
type branch struct {
	outcome
	pkt    pktState
	frames [maxDepth]frame
	depth  int
	stage  stage
}

// outcome is what a finished branch reports.
type outcome struct {
	prob, eff  float64
	rules      int   // rules a linear walk evaluates
	tail       int32 // last step in the scratch arena, -1 if none
	assumed    int32 // last assumption (undecided match) in the arena, -1 if none
	verdict    Verdict
	masquerade bool
	dnatTo     netip.AddrPort
	service    string
}

var errTooDeep = fmt.Errorf("jump depth exceeds %d chains", maxDepth)

// runBranch walks b through its remaining stages.
func (t *IPTablesTracer) runBranch(s *scratch, b *branch) error {
	for b.stage != stageDone {
		if b.depth == 0 && t.skipStage(b) {
			b.stage = t.nextStage(b)
			continue
		}
		hook := stageHooks[b.stage]
		tbl := t.tables[hook.table]
		start := t.hookChain[b.stage]
		if b.depth == 0 { // entering the hook; a forked branch resumes mid-walk
			b.frames[0], b.depth = frame{chain: start}, 1
			b.pkt.setIfaces(b.stage, t.isLocal(b.pkt.dst))
		}
		v, err := t.walk(s, b, tbl, &tbl.chains[start])
		if err != nil {
			return err
		}
		b.depth = 0
		if v != Accept {
			b.verdict, b.stage = v, stageDone
			return nil
		}
		b.stage = t.nextStage(b)
	}
	b.verdict = Accept
	return nil
}

// skipStage reports whether b does not cross b.stage's chain: the dump
// lacks it, or it is a nat chain and conntrack does not consult nat (an
// untracked or established packet, or a looped-back one already NATed).
func (t *IPTablesTracer) skipStage(b *branch) bool {
	hook := stageHooks[b.stage]
	if t.tables[hook.table] == nil || t.hookChain[b.stage] < 0 {
		return true
	}
	if hook.table != tableNat {
		return false
	}
	return b.pkt.untracked || b.pkt.established || b.pkt.looped
}

// nextStage is the stage after b.stage for an accepted packet. After
// PREROUTING and OUTPUT it routes: to INPUT if the (DNATed) destination is
// local, else to FORWARD or out. A host process's packet to a local
// address loops back through lo: PREROUTING (raw and mangle; nat already
// ran) and INPUT.
func (t *IPTablesTracer) nextStage(b *branch) stage {
	switch b.stage {
	case stageNatPrerouting:
		if t.isLocal(b.pkt.dst) {
			return stageMangleInput
		}
		return stageMangleForward
	case stageNatInput:
		return stageDone
	case stageSecurityForward:
		return stageManglePostrouting
	case stageNatPostrouting:
		if b.pkt.fromHost && !b.pkt.looped && t.isLocal(b.pkt.dst) {
			b.pkt.looped = true
			return stageRawPrerouting
		}
		return stageDone
	}
	return b.stage + 1
}

// walk runs the jump stack of b in tbl until a verdict for this hook; if
// none, the built-in chain's policy applies.
func (t *IPTablesTracer) walk(s *scratch, b *branch, tbl *compiledTable, builtin *compiledChain) (Verdict, error) {
	for b.depth > 0 {
		f := &b.frames[b.depth-1]
		if v, done, err := t.walkChain(s, b, tbl, &tbl.chains[f.chain], f); done || err != nil {
			return v, err
		}
	}
	if builtin.policyKept {
		s.note(fmt.Sprintf("%s %s has policy \"-\" (kept from before the restore); taken as ACCEPT", tbl.name, builtin.name))
	}
	return builtin.policy, nil
}

// walkChain runs the rules of c from f.pos until the chain ends, a target
// changes the jump stack, or a target gives the hook's verdict (done).
func (t *IPTablesTracer) walkChain(s *scratch, b *branch, tbl *compiledTable, c *compiledChain, f *frame) (Verdict, bool, error) {
	pos := int(f.pos)
	for {
		i := pos
		if c.index != nil {
			i = c.next(pos, &b.pkt)
		} else if pos >= len(c.rules) {
			i = -1
		}
		if i < 0 {
			b.rules += len(c.rules) - pos
			b.depth--
			return "", false, nil
		}
		b.rules += i - pos + 1
		pos = i + 1
		f.pos = int32(pos)
		r := &c.rules[i]
		matched := true
		if r.checks != 0 {
			var undecided string
			if matched, undecided = t.matches(s, b, r); undecided != "" {
				var done bool
				if matched, done = t.forkUndecided(s, b, tbl, f.chain, i, undecided); done {
					return Unknown, true, nil
				}
			}
		}
		if matched && r.stat.random {
			var err error
			if matched, err = t.fork(s, b, tbl.id, f.chain, i, r); err != nil {
				return "", true, err
			}
		}
		if !t.skipPaths {
			b.tail = s.addStep(b.tail, tbl.id, f.chain, int32(i), matched)
		}
		if !matched {
			continue
		}
		if v, done, err := t.apply(s, b, tbl, r); done || err != nil {
			return v, true, err
		}
		if r.target == targetJump || r.target == targetGoto || r.target == targetReturn {
			return "", false, nil
		}
	}
}

// fork splits b at a statistic rule that otherwise matched: a copy that
// does not take the rule is queued, b takes it. It returns whether b takes
// the rule (a probability of 0 or 1 does not fork).
func (t *IPTablesTracer) fork(s *scratch, b *branch, table uint8, chain int32, i int, r *compiledRule) (bool, error) {
	switch r.stat.effective {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	if s.branches >= t.maxBranches {
		return false, errors.New("too many statistic branches (Options.MaxBranches)")
	}
	s.branches++
	s.pending = append(s.pending, *b)
	nb := &s.pending[len(s.pending)-1]
	nb.prob *= 1 - r.stat.nominal
	nb.eff *= 1 - r.stat.effective
	if !t.skipPaths {
		nb.tail = s.addStep(b.tail, table, chain, int32(i), false)
	}
	b.prob *= r.stat.nominal
	b.eff *= r.stat.effective
	return true, nil
}

// forkUndecided splits b at a rule whose match the tracer cannot decide:
// a copy assuming it does not match is queued, b assumes it matches. Both
// keep b's probability; finish compares what the assumptions lead to. Past
// Options.MaxBranches the branch ends with verdict unknown (done).
func (t *IPTablesTracer) forkUndecided(s *scratch, b *branch, tbl *compiledTable, chain int32, i int, why string) (matched, done bool) {
	if s.branches >= t.maxBranches {
		s.note("too many undecided matches to follow every branch (Options.MaxBranches)")
		return false, true
	}
	s.branches++
	s.pending = append(s.pending, *b)
	nb := &s.pending[len(s.pending)-1]
	nb.assumed = s.addAssumption(b.assumed, tbl.id, chain, int32(i), false, why)
	if !t.skipPaths {
		nb.tail = s.addStep(b.tail, tbl.id, chain, int32(i), false)
	}
	b.assumed = s.addAssumption(b.assumed, tbl.id, chain, int32(i), true, why)
	return true, false
}

func (t *IPTablesTracer) isLocal(a netip.Addr) bool {
	if a.IsLoopback() {
		return true
	}
	_, ok := t.local[a]
	return ok
}
