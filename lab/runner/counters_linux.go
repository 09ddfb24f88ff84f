package runner

import (
	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// fillKernelCounts records the kernel's own count of the split, whatever
// dataplane counted it: per endpoint, and for an iptables statistic cascade
// per rule with the conditional probability each rule showed.
func fillKernelCounts(run *results.FairnessRun, c apply.Counters) {
	agree := true
	for i := range run.Endpoints {
		ep := &run.Endpoints[i]
		ep.DNAT = c.Endpoints[ep.Endpoint]
		agree = agree && (ep.DNAT == ep.Count || run.Mode == "keepalive")
	}
	run.CountsAgree = agree
	run.KernelCounter = c.Source
	if c.Cascade == nil {
		return
	}
	run.ChainEntered = c.Cascade.Entered
	packets := make([]uint64, len(c.Cascade.Rules))
	probs := make([]float64, len(c.Cascade.Rules))
	for i, r := range c.Cascade.Rules {
		run.Rules = append(run.Rules, results.Rule{Chain: c.Cascade.Chain, Index: r.Index, Target: r.Target, Probability: r.Probability, Packets: r.Packets})
		packets[i], probs[i] = r.Packets, r.Probability
	}
	fillCascade(run, packets, probs)
}

// fillCascade computes, per rule, the share of what reached it that it took.
func fillCascade(run *results.FairnessRun, packets []uint64, probs []float64) {
	steps, err := stats.Cascade(packets, probs)
	if err != nil {
		return
	}
	for i, s := range steps {
		r := &run.Rules[i]
		r.Reached, r.Observed, r.ObservedLo, r.ObservedHi, r.P = s.Reached, s.Observed, s.ObservedLo, s.ObservedHi, s.P
	}
}
