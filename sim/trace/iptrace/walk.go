package iptrace

import (
	"errors"
	"fmt"
	"net/netip"
)

// maxDepth is the deepest chain nesting the tracer follows.
const maxDepth = 16

// stage is one hook a packet crosses: a table's built-in chain.
type stage uint8

const (
	stageNatPrerouting stage = iota
	stageNatOutput
	stageFilterInput
	stageFilterForward
	stageFilterOutput
	stageNatPostrouting
	stageDone
)

var stageHooks = [stageDone]struct {
	table int
	chain string
}{
	{tableNat, "PREROUTING"}, {tableNat, "OUTPUT"}, {tableFilter, "INPUT"},
	{tableFilter, "FORWARD"}, {tableFilter, "OUTPUT"}, {tableNat, "POSTROUTING"},
}

// frame is a position in a chain on the jump stack.
type frame struct {
	chain int32
	pos   int32 // next rule to look at
}

// branch is one path of a packet through the rules; a statistic rule
// splits a branch in two.
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
	verdict    Verdict
	masquerade bool
	dnatTo     netip.AddrPort
	service    string
}

var errTooDeep = fmt.Errorf("jump depth exceeds %d chains", maxDepth)

// runBranch walks b through its remaining stages.
func (t *IPTablesTracer) runBranch(s *scratch, b *branch) error {
	for b.stage != stageDone {
		hook := stageHooks[b.stage]
		tbl := t.tables[hook.table]
		if tbl == nil {
			b.stage = t.nextStage(b)
			continue
		}
		start := t.hookChain[b.stage]
		if b.depth == 0 { // entering the hook; a forked branch resumes mid-walk
			b.frames[0], b.depth = frame{chain: start}, 1
		}
		v, err := t.walk(s, b, tbl, tbl.chains[start].policy)
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

// nextStage is the hook after b.stage for an accepted packet; after nat
// PREROUTING it routes: to INPUT if the (DNATed) destination is local.
func (t *IPTablesTracer) nextStage(b *branch) stage {
	switch b.stage {
	case stageNatPrerouting:
		if t.isLocal(b.pkt.dst) {
			return stageFilterInput
		}
		return stageFilterForward
	case stageNatOutput:
		return stageFilterOutput
	case stageFilterForward, stageFilterOutput:
		return stageNatPostrouting
	}
	return stageDone
}

// walk runs the jump stack of b in tbl until a verdict for this hook.
func (t *IPTablesTracer) walk(s *scratch, b *branch, tbl *compiledTable, policy Verdict) (Verdict, error) {
	for b.depth > 0 {
		f := &b.frames[b.depth-1]
		if v, done, err := t.walkChain(s, b, tbl, &tbl.chains[f.chain], f); done || err != nil {
			return v, err
		}
	}
	return policy, nil
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
		matched := r.checks == 0 || t.matches(s, b, r, tbl, c, i)
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

// apply runs the target of a matched rule; done reports a verdict for the
// hook.
func (t *IPTablesTracer) apply(s *scratch, b *branch, tbl *compiledTable, r *compiledRule) (Verdict, bool, error) {
	switch r.target {
	case targetJump, targetGoto:
		if r.service != "" && b.service == "" {
			b.service = r.service
		}
		if r.target == targetJump {
			if b.depth == maxDepth {
				return "", true, errTooDeep
			}
			b.depth++
		}
		b.frames[b.depth-1] = frame{chain: r.chain}
	case targetReturn:
		b.depth--
	case targetAccept:
		return Accept, true, nil
	case targetDrop:
		return Drop, true, nil
	case targetReject:
		return Reject, true, nil
	case targetDNAT:
		b.pkt.dst, b.pkt.dnat = r.dnat.Addr(), true
		if b.pkt.is4 {
			b.pkt.dst4 = addr4(b.pkt.dst)
		}
		if r.dnat.Port() != 0 {
			b.pkt.dport = r.dnat.Port()
		}
		b.dnatTo = netip.AddrPortFrom(b.pkt.dst, b.pkt.dport)
		return Accept, true, nil
	case targetMasquerade:
		b.masquerade = true
		return Accept, true, nil
	case targetMark:
		b.pkt.mark = (b.pkt.mark &^ r.markM) ^ r.markV
	case targetMissingChain:
		s.note(fmt.Sprintf("%s: jump to %s, which is not in the dump; treated as an empty chain", tbl.name, r.name))
	case targetUnmodelled:
		s.note(fmt.Sprintf("%s: target %s is not modelled; treated as ACCEPT", tbl.name, r.src0.String()))
		return Accept, true, nil
	}
	return "", false, nil
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

func (t *IPTablesTracer) isLocal(a netip.Addr) bool {
	if a.IsLoopback() {
		return true
	}
	_, ok := t.local[a]
	return ok
}
