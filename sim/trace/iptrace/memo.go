package iptrace

import (
	"slices"
	"sync/atomic"
)

// A stage whose rules (with every chain they reach) look only at the
// protocol, ports, mark and conntrack state, and only accept, drop,
// reject, mark, masquerade or move between chains, does the same thing to
// every packet that agrees on those: on a kube-proxy node, filter FORWARD,
// INPUT and OUTPUT when every service has endpoints and no load balancer
// has source ranges, and nat POSTROUTING. From such a stage on, the
// stages a branch crosses until the first one that is not memoizable (or
// the end) are walked once per distinct memoKey, which adds what routing
// looks at, and replayed from the tracer's memo afterwards. Every forked
// branch of every packet crosses them after its DNAT, so this saves about
// half of a kube-proxy trace's walk. A stage whose rules test an address
// (or reach an indexed chain, a statistic rule, a set, an interface, ...)
// is always walked.

// memoSlots is the number of entries of a tracer's stage memo (direct
// mapped; a few keys occur in practice: one per stage, mark and port).
const memoSlots = 256

// memoChecks are the matches a memoized stage may have.
const memoChecks = checkProto | checkDPort | checkSPort | checkMark | checkCT

// memoKey is everything the memoized stages from a stage on depend on,
// packed in two words (built in registers: a struct built field by field
// and then compared whole stalls on store forwarding): the mark, source
// and destination port; the protocol, the memoIs4... bits and the stage.
type memoKey struct {
	marksPorts uint64
	rest       uint32
}

// Bits of memoKey: the packet's conntrack state and masquerading, and what
// routing between stages looks at.
const (
	memoIs4 uint8 = 1 << iota
	memoDNAT
	memoUntracked
	memoMasquerade
	memoDstLocal
	memoFromHost
	memoLooped
)

// memoEntry is the outcome of running the memoizable stages from a stage
// on with a key: the branch leaves them at stage next (stageDone when it
// ended) with verdict. It is never changed once published.
type memoEntry struct {
	key        memoKey
	steps      []Step
	rules      int
	verdict    vcode // vAccept: on to stage next
	next       stage
	mark       uint32
	masquerade bool
	looped     bool
	notes      []string // the walks' notes on kept built-in chain policies
}

func (k memoKey) slot() uint64 {
	x := k.marksPorts ^ uint64(k.rest)*0x9e3779b97f4a7c15
	return (x * 0xff51afd7ed558ccd) >> 56 // 8 bits: memoSlots
}

// setMemo marks the stages whose walk can be memoized (see memoKey).
func (t *IPTablesTracer) setMemo() {
	for st := range stageDone {
		if start := t.hookChain[st]; start >= 0 {
			t.memoOK[st] = t.tables[stageHooks[st].table].pureFrom(start)
		}
	}
}

// pureFrom reports whether every rule reachable from chain c is
// memoizable (pureRule) and no chain on the way is indexed.
func (ct *compiledTable) pureFrom(c int32) bool {
	seen := map[int32]bool{}
	var visit func(c int32) bool
	visit = func(c int32) bool {
		if seen[c] {
			return true
		}
		seen[c] = true
		ch := &ct.chains[c]
		if ch.index != nil {
			return false
		}
		for i := range ch.rules {
			r := &ch.rules[i]
			if !pureRule(r) || (r.target == targetJump || r.target == targetGoto) && !visit(r.chain) {
				return false
			}
		}
		return true
	}
	return visit(c)
}

// pureRule reports whether r decides and acts on memoKey's fields only.
func pureRule(r *compiledRule) bool {
	if r.checks&^memoChecks != 0 || r.flags&flagStatRandom != 0 || r.service != 0 {
		return false
	}
	switch r.target {
	case targetNone, targetContinue, targetMark, targetJump, targetGoto, targetReturn,
		targetAccept, targetDrop, targetReject, targetMasquerade:
		return true
	}
	return false
}

// runMemoized runs b, at the start of memoizable stage b.stage, through
// that stage and the following memoizable ones: replayed from the memo if
// its key is there, else walked and remembered. It returns the verdict
// (vAccept: b.stage is the next stage, not memoizable, or stageDone).
func (t *IPTablesTracer) runMemoized(s *scratch, b *branch) (vcode, error) {
	key := b.memoKey()
	slot := &t.memo[key.slot()]
	if e := slot.Load(); e != nil && e.key == key {
		return t.replay(s, b, e), nil
	}
	e := &memoEntry{key: key, verdict: vAccept}
	from, rules := len(s.steps), b.rules
	for b.stage != stageDone {
		start := t.hookChain[b.stage]
		if t.skipStage(b, start) {
			b.stage = t.nextStage(b)
			continue
		}
		if !t.memoOK[b.stage] {
			break
		}
		v, err := t.walkPure(s, b, start, e)
		if err != nil {
			return v, err
		}
		if v != vAccept {
			e.verdict = v
			break
		}
		b.stage = t.nextStage(b)
	}
	e.steps, e.rules, e.next = slices.Clone(s.steps[from:]), b.rules-rules, b.stage
	e.mark, e.masquerade, e.looped = b.pkt.mark, b.masquerade, b.pkt.looped
	slot.Store(e)
	return e.verdict, nil
}

// walkPure walks b through memoizable stage b.stage (built-in chain
// start), noting in e a kept policy it falls back on.
func (t *IPTablesTracer) walkPure(s *scratch, b *branch, start int32, e *memoEntry) (vcode, error) {
	tbl := t.tables[stageHooks[b.stage].table]
	builtin := &tbl.chains[start]
	b.enter(start)
	v, err := t.walk(s, b, tbl)
	b.depth = 0
	if v == vNone && builtin.policyKept {
		e.notes = append(e.notes, keptPolicyNote(tbl, builtin))
	}
	return t.policy(s, tbl, builtin, v), err
}

// replay applies a memoized run to b.
func (t *IPTablesTracer) replay(s *scratch, b *branch, e *memoEntry) vcode {
	s.steps = append(s.steps, e.steps...)
	b.rules += e.rules
	b.stage, b.pkt.mark, b.masquerade, b.pkt.looped = e.next, e.mark, e.masquerade, e.looped
	for _, n := range e.notes {
		s.note(n)
	}
	return e.verdict
}

// memoKey is b's key for a memoizable stage.
func (b *branch) memoKey() memoKey {
	p := &b.pkt
	bits := flagBit(p.is4, memoIs4) | flagBit(p.dnat, memoDNAT) | flagBit(p.untracked, memoUntracked) |
		flagBit(b.masquerade, memoMasquerade) | flagBit(p.dstLocal, memoDstLocal) |
		flagBit(p.fromHost, memoFromHost) | flagBit(p.looped, memoLooped)
	return memoKey{
		marksPorts: uint64(p.mark)<<32 | uint64(p.sport)<<16 | uint64(p.dport),
		rest:       uint32(p.proto)<<16 | uint32(bits)<<8 | uint32(b.stage),
	}
}

func flagBit(on bool, bit uint8) uint8 {
	if on {
		return bit
	}
	return 0
}

// memoTable is a tracer's stage memo.
type memoTable [memoSlots]atomic.Pointer[memoEntry]
