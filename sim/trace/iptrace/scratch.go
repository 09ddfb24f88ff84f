package iptrace

import "slices"

// scratch is the per-trace working memory, pooled by the tracer.
type scratch struct {
	steps    []Step // the paths of all branches, in segments (see pathSeg)
	segs     []pathSeg
	epFrom   []int // per endpoint of the trace, the done branch its path is from
	pending  []branch
	cur      branch // the branch being walked
	done     []outcome
	notes    []string
	affinity []string // recent lists checked
	branches int
	assume   []assumption
	worlds   worldScratch
	// touched sums values the walk loads ahead of need (cache prefetch);
	// it is never read, it only keeps the loads.
	touched uint32
	aheadOf int32 // the chain whose look-ahead was loaded last (see aheadBlock)
}

// assumption is an undecided match a branch assumed to match or not,
// linked to the branch's previous assumption.
type assumption struct {
	prev    int32
	table   uint8
	chain   int32
	rule    int32
	matched bool
	why     string
}

func (s *scratch) addAssumption(prev int32, table uint8, chain, rule int32, matched bool, why string) int32 {
	s.assume = append(s.assume, assumption{prev: prev, table: table, chain: chain, rule: rule, matched: matched, why: why})
	return int32(len(s.assume) - 1)
}

// pathSeg is a run of steps of one branch, s.steps[start:] up to where the
// branch forked or ended, after the first prevEnd steps (an absolute index
// into s.steps) of segment prev: branches share the path up to their fork.
type pathSeg struct {
	prev, prevEnd int32
	start         int32
	base          int32 // steps of the path before start
}

// push queues a copy of b and returns it. Only the frames in use are
// copied.
func (s *scratch) push(b *branch) *branch {
	if len(s.pending) == cap(s.pending) {
		s.pending = append(s.pending, branch{})
	} else {
		s.pending = s.pending[:len(s.pending)+1]
	}
	nb := &s.pending[len(s.pending)-1]
	b.copyTo(nb)
	return nb
}

// pop moves the last queued branch into b.
func (s *scratch) pop(b *branch) {
	s.pending[len(s.pending)-1].copyTo(b)
	s.pending = s.pending[:len(s.pending)-1]
}

// copyTo copies b to nb, of the jump stack only the frames in use.
func (b *branch) copyTo(nb *branch) {
	nb.outcome, nb.pkt = b.outcome, b.pkt
	nb.depth, nb.stage, nb.fresh, nb.cut, nb.forkedAt = b.depth, b.stage, b.fresh, b.cut, b.forkedAt
	copy(nb.frames[:b.depth], b.frames[:b.depth])
}

func (s *scratch) reset() {
	s.steps = s.steps[:0]
	s.segs = s.segs[:0]
	s.pending = s.pending[:0]
	s.done = s.done[:0]
	s.notes = s.notes[:0]
	s.affinity = s.affinity[:0]
	s.branches = 0
	s.assume = s.assume[:0]
	s.aheadOf = -1
}

// addSeg starts a segment after the first prevEnd steps of segment prev
// (-1: none) and returns it.
func (s *scratch) addSeg(prev, prevEnd int32) int32 {
	sg := pathSeg{prev: prev, prevEnd: prevEnd, start: int32(len(s.steps))}
	if prev >= 0 {
		p := &s.segs[prev]
		sg.base = p.base + prevEnd - p.start
	}
	s.segs = append(s.segs, sg)
	return int32(len(s.segs) - 1)
}

// note records a flag once.
func (s *scratch) note(msg string) {
	if !slices.Contains(s.notes, msg) {
		s.notes = append(s.notes, msg)
	}
}

func (s *scratch) noteAffinity(list string) {
	if !slices.Contains(s.affinity, list) {
		s.affinity = append(s.affinity, list)
	}
}
