package iptrace

import "slices"

// scratch is the per-trace working memory, pooled by the tracer.
type scratch struct {
	steps    []pathStep
	pending  []branch
	done     []outcome
	notes    []string
	affinity []string // recent lists checked
	branches int
	assume   []assumption
	worlds   worldScratch
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

// pathStep is a Step in compact form, linked to the step before it so that
// branches share the path up to their fork.
type pathStep struct {
	prev    int32
	depth   int32 // steps up to and including this one
	rule    int32
	chain   int32
	table   uint8
	matched bool
}

func (s *scratch) reset() {
	s.steps = s.steps[:0]
	s.pending = s.pending[:0]
	s.done = s.done[:0]
	s.notes = s.notes[:0]
	s.affinity = s.affinity[:0]
	s.branches = 0
	s.assume = s.assume[:0]
}

func (s *scratch) addStep(prev int32, table uint8, chain, rule int32, matched bool) int32 {
	depth := int32(1)
	if prev >= 0 {
		depth += s.steps[prev].depth
	}
	s.steps = append(s.steps, pathStep{prev: prev, depth: depth, rule: rule, chain: chain, table: table, matched: matched})
	return int32(len(s.steps) - 1)
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
