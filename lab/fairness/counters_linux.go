package fairness

import (
	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/results"
)

// fillKernelCounts records the kernel's own count of the split, whatever
// dataplane counted it: per endpoint, and for an iptables statistic cascade
// per rule with the conditional probability each rule showed.
func fillKernelCounts(run *results.FairnessRun, c apply.Counters) {
	agree := true
	for i := range run.Endpoints {
		ep := &run.Endpoints[i]
		ep.DNAT = c.Endpoints[ep.Endpoint]
		agree = agree && ep.DNAT == servedConnections(*run, *ep) // the kernel counts connections
	}
	run.CountsAgree = agree
	run.KernelCounter = c.Source
	if c.Cascade == nil {
		return
	}
	run.ChainEntered = c.Cascade.Entered
	for _, r := range c.Cascade.Rules {
		run.Rules = append(run.Rules, results.Rule{Chain: c.Cascade.Chain, Index: r.Index, Target: r.Target, Probability: r.Probability, Packets: r.Packets})
	}
	run.ObserveCascade()
}
