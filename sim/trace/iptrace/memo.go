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
// has source ranges, and nat POSTROUTING. Such a stage is walked once per
// distinct memoKey and replayed from the tracer's memo afterwards; every
// forked branch of every packet crosses it, so this saves about half of a
// kube-proxy trace's walk. A stage whose rules test an address (or reach
// an indexed chain, a statistic rule, a set, an interface, ...) is always
// walked.

// memoSlots is the number of entries of a tracer's stage memo (direct
// mapped; a few keys occur in practice: one per stage, mark and port).
const memoSlots = 256

// memoChecks are the matches a memoized stage may have.
const memoChecks = checkProto | checkDPort | checkSPort | checkMark | checkCT

// memoKey is everything a memoizable stage's walk depends on, packed in
// two words (built in registers: a struct built field by field and then
// compared whole stalls on store forwarding): the mark, source and
// destination port; the protocol, memoIs4... bits and the stage.
type memoKey struct {
	marksPorts uint64
	rest       uint32
}

const (
	memoIs4 uint8 = 1 << iota
	memoDNAT
	memoUntracked
	memoMasquerade
)

// memoEntry is the outcome of walking a memoizable stage with a key. It
// is never changed once published.
type memoEntry struct {
	key        memoKey
	steps      []pathStep
	rules      int
	verdict    vcode
	mark       uint32
	masquerade bool
	note       string // the walk's note on the built-in chain's kept policy, if any
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

// walkStage walks b through the built-in chain start of its stage, from
// the memo when the stage allows it.
func (t *IPTablesTracer) walkStage(s *scratch, b *branch, start int32) (vcode, error) {
	tbl := t.tables[stageHooks[b.stage].table]
	builtin := &tbl.chains[start]
	if b.depth == 0 {
		b.frames[0], b.depth = frame{chain: start}, 1
		if t.memoOK[b.stage] && !b.pkt.established {
			return t.walkMemo(s, b, tbl, builtin)
		}
	} // else a forked branch resumes mid-walk
	v, err := t.walk(s, b, tbl)
	return t.policy(s, tbl, builtin, v), err
}

// walkMemo walks b through a memoizable stage (see memoKey): replayed
// from the memo if its key is there, else walked and remembered.
func (t *IPTablesTracer) walkMemo(s *scratch, b *branch, tbl *compiledTable, builtin *compiledChain) (vcode, error) {
	key := b.memoKey()
	slot := &t.memo[key.slot()]
	if e := slot.Load(); e != nil && e.key == key {
		b.depth = 0
		return t.replay(s, b, e), nil
	}
	from, rules := len(s.steps), b.rules
	v, err := t.walk(s, b, tbl)
	if err != nil {
		return v, err
	}
	e := &memoEntry{key: key, steps: slices.Clone(s.steps[from:]), rules: b.rules - rules, mark: b.pkt.mark, masquerade: b.masquerade}
	if v == vNone && builtin.policyKept {
		e.note = keptPolicyNote(tbl, builtin)
	}
	e.verdict = t.policy(s, tbl, builtin, v)
	slot.Store(e)
	return e.verdict, nil
}

// replay applies a memoized walk to b.
func (t *IPTablesTracer) replay(s *scratch, b *branch, e *memoEntry) vcode {
	s.steps = append(s.steps, e.steps...)
	b.rules += e.rules
	b.pkt.mark, b.masquerade = e.mark, e.masquerade
	if e.note != "" {
		s.note(e.note)
	}
	return e.verdict
}

// memoKey is b's key for a memoizable stage.
func (b *branch) memoKey() memoKey {
	p := &b.pkt
	bits := flagBit(p.is4, memoIs4) | flagBit(p.dnat, memoDNAT) | flagBit(p.untracked, memoUntracked) |
		flagBit(b.masquerade, memoMasquerade)
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
