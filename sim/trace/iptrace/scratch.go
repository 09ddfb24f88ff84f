package iptrace

import "slices"

// scratch is the per-trace working memory: pooled by the tracer for
// Trace, kept in the Trace it fills by TraceInto.
type scratch struct {
	steps      []Step // the paths of all branches, one after the other (see branch.fresh)
	epFrom     []int  // per endpoint of the trace, the done branch its path is from
	pending    []branch
	cur        branch // the branch being walked
	done       []outcome
	notes      []string
	affinity   []string // recent lists checked
	recentSets []string // recent lists set (--set), one per endpoint branch
	// recentChecks are the lists recent rules other than --set looked
	// up, one entry per rule evaluated (on any branch).
	recentChecks []string
	branches     int
	assume       []assumption
	worlds       worldScratch
	// touched sums values the walk loads ahead of need (cache prefetch);
	// it is never read, it only keeps the loads.
	touched uint32
	aheadOf int32 // the chain whose look-ahead was loaded last (see aheadBlock)
	// keptByTrace: the scratch belongs to the Trace being filled
	// (TraceInto), whose paths may then be slices of steps.
	keptByTrace bool
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
	if len(nb.frames) < b.depth {
		nb.frames = make([]frame, len(b.frames))
	}
	copy(nb.frames[:b.depth], b.frames[:b.depth])
}

// enter starts b's jump stack at built-in chain c.
func (b *branch) enter(c int32) {
	if len(b.frames) == 0 {
		b.frames = make([]frame, initialDepth)
	}
	b.frames[0], b.depth = frame{chain: c}, 1
}

// grow doubles b's jump stack, keeping the frames in use.
func (b *branch) grow() {
	b.frames = append(b.frames, make([]frame, len(b.frames))...)
}

func (s *scratch) reset() {
	s.steps = s.steps[:0]
	s.pending = s.pending[:0]
	s.done = s.done[:0]
	s.notes = s.notes[:0]
	s.affinity = s.affinity[:0]
	s.recentSets = s.recentSets[:0]
	s.recentChecks = s.recentChecks[:0]
	s.branches = 0
	s.assume = s.assume[:0]
	s.aheadOf = -1
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

// noteRecentSet records that a branch's --set rule names list.
func (s *scratch) noteRecentSet(list string) {
	if !slices.Contains(s.recentSets, list) {
		s.recentSets = append(s.recentSets, list)
	}
}
