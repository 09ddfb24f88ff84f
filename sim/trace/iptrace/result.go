package iptrace

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/trace"
)

// uniformTolerance is the relative deviation from 1/n above which a split
// is flagged as not uniform.
const uniformTolerance = 1e-6

// Trace traces p. See TraceInto to trace many packets cheaply.
func (t *IPTablesTracer) Trace(p trace.Packet) (Trace, error) {
	var out Trace
	s := t.scratch.Get().(*scratch) // pooled scratches are never keptByTrace
	err := t.traceWith(s, p, &out)
	t.scratch.Put(s)
	return out, err
}

// TraceInto traces p into out, reusing out's slices and the working memory
// it keeps from the last TraceInto, so that a loop tracing many packets
// into one Trace allocates next to nothing. The paths are slices of that
// working memory: they hold until the next TraceInto into out. Concurrent
// calls need a Trace each.
func (t *IPTablesTracer) TraceInto(p trace.Packet, out *Trace) error {
	if out.scratch == nil {
		out.scratch = &scratch{keptByTrace: true}
	}
	return t.traceWith(out.scratch, p, out)
}

// traceWith traces p into out with working memory s.
func (t *IPTablesTracer) traceWith(s *scratch, p trace.Packet, out *Trace) error {
	b := &s.cur
	if err := t.startBranch(p, b); err != nil {
		return err
	}
	s.reset()
	for {
		if err := t.runBranch(s, b); err != nil {
			return fmt.Errorf("trace %v: %w", p, err)
		}
		s.done = append(s.done, b.outcome)
		if len(s.pending) == 0 {
			break
		}
		s.pop(b)
	}
	t.finish(s, out)
	return nil
}

// finish turns the finished branches into out.
func (t *IPTablesTracer) finish(s *scratch, out *Trace) {
	var worldFlags []string
	unknown := false
	out.Undecided = out.Undecided[:0]
	for i := range s.done {
		if s.done[i].assumed >= 0 {
			worldFlags, out.Undecided, unknown = t.settleWorlds(s, out.Undecided)
			break
		}
	}
	t.finishBranches(s, out)
	out.Flags = append(out.Flags, worldFlags...)
	if t.missing != "" {
		// The nat decisions stand; the verdicts cannot be known.
		out.Verdict = Unknown
		for i := range out.Endpoints {
			out.Endpoints[i].Verdict = Unknown
		}
		out.Flags = append(out.Flags, t.missing)
	}
	if unknown {
		out.Verdict, out.DNAT, out.Masquerade = Unknown, netip.AddrPort{}, false
		out.Endpoints = out.Endpoints[:0]
	}
}

// finishBranches turns the finished branches of one world into out.
func (t *IPTablesTracer) finishBranches(s *scratch, out *Trace) {
	main, mainIdx := &s.done[0], 0
	out.ExpectedRulesEvaluated = 0
	for i := range s.done {
		b := &s.done[i]
		if b.eff > main.eff {
			main, mainIdx = b, i
		}
		out.ExpectedRulesEvaluated += b.eff * float64(b.rules)
	}
	out.Verdict, out.Masquerade, out.DNAT = main.verdict, main.masquerade, main.dnatTo
	out.Service, out.RulesEvaluated, out.Branches = t.serviceName(main.service), main.rules, len(s.done)
	out.AddrTypesEvaluated = main.addrTypes
	out.Mark = main.mark
	out.Endpoints = t.endpoints(s, out.Endpoints)
	out.Path = t.mainPath(s, mainIdx, out)
	out.Flags = t.flags(s, main, out.Endpoints, out.Flags[:0])
	out.RecentChecked = append(out.RecentChecked[:0], s.recentChecks...)
	out.RecentSet = append(out.RecentSet[:0], s.recentSets...)
}

// mainPath returns the main branch's path: the path of its endpoint, if
// it has one, else its own.
func (t *IPTablesTracer) mainPath(s *scratch, main int, out *Trace) []Step {
	for i, from := range s.epFrom {
		if from == main {
			return out.Endpoints[i].Path
		}
	}
	return t.path(s, &s.done[main])
}

// path is finished branch b's path: a slice of the arena when the Trace
// being filled keeps the arena (TraceInto), else a copy.
func (t *IPTablesTracer) path(s *scratch, b *outcome) []Step {
	if t.skipPaths {
		return nil
	}
	run := s.steps[b.start:b.end:b.end]
	if s.keptByTrace {
		return run
	}
	return slices.Clone(run)
}

// endpoints lists the DNATed branches, merging those that reach the same
// endpoint, into eps's memory.
func (t *IPTablesTracer) endpoints(s *scratch, eps []Endpoint) []Endpoint {
	eps = eps[:0]
	s.epFrom = s.epFrom[:0]
	for i := range s.done {
		b := &s.done[i]
		if !b.dnatTo.IsValid() {
			continue
		}
		if j := endpointIndex(eps, b.dnatTo); j >= 0 {
			eps[j].Probability += b.prob
			eps[j].Effective += b.eff
			continue
		}
		eps = append(eps, Endpoint{
			Endpoint: b.dnatTo, Probability: b.prob, Effective: b.eff,
			Verdict: b.verdict, Masquerade: b.masquerade, RulesEvaluated: b.rules,
			Path: t.path(s, b),
		})
		s.epFrom = append(s.epFrom, i)
	}
	return eps
}

func endpointIndex(eps []Endpoint, a netip.AddrPort) int {
	for i := range eps {
		if eps[i].Endpoint == a {
			return i
		}
	}
	return -1
}

func (t *IPTablesTracer) flags(s *scratch, main *outcome, eps []Endpoint, flags []string) []string {
	flags = append(flags, t.notes...)
	flags = append(flags, s.notes...)
	if len(s.affinity) > 0 {
		flags = append(flags, "ClientIP affinity: the first packet picks an endpoint by probability; "+
			"later packets from the same source stick to the endpoint recorded in recent list "+
			strings.Join(s.affinity, ", "))
	}
	if dev := uniformDeviation(eps); dev > uniformTolerance {
		flags = append(flags, fmt.Sprintf("split deviates from uniform by %.3g (relative) across %d endpoints", dev, len(eps)))
	}
	if main.service == 0 && !main.dnatTo.IsValid() && t.tables[tableNat] != nil {
		msg := "no service: no nat rule matched the destination, which is left unchanged"
		if len(t.local) == 0 {
			msg += " (if it is a NodePort on a node address, give the node's addresses with --local)"
		}
		flags = append(flags, msg)
	}
	return flags
}

// uniformDeviation returns the largest relative difference between an
// endpoint's effective probability and the mean, 0 for fewer than two.
func uniformDeviation(eps []Endpoint) float64 {
	if len(eps) < 2 {
		return 0
	}
	total := 0.0
	lo, hi := eps[0].Effective, eps[0].Effective
	for _, e := range eps {
		total += e.Effective
		lo, hi = min(lo, e.Effective), max(hi, e.Effective)
	}
	mean := total / float64(len(eps))
	return max(hi-mean, mean-lo) / mean
}
