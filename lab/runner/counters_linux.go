package runner

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/apply"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// fillKernelCounters adds the kernel's view of the split: the packet counter
// of each endpoint's DNAT rule, and of each rule of the service chain's
// statistic cascade. Only iptables dataplanes keep per-rule counters in
// kube-proxy's rules; IPVS has per-real-server counters, and for nftables the
// node's conntrack table is the witness.
func fillKernelCounters(run *results.FairnessRun, dp apply.Dataplane, events map[string]uint64, t fairnessTarget) error {
	if v, ok := apply.IPVSOf(dp); ok {
		return fillIPVSCounters(run, v, t)
	}
	ipt, ok := apply.IPTablesOf(dp)
	if !ok {
		if events != nil {
			fillConntrackCounters(run, events)
		}
		return nil
	}
	nat, err := ipt.Snapshot("nat") // one iptables-save for every counter below
	if err != nil {
		return err
	}
	name, proto := t.svc.PortName(t.port), t.port.Protocol.Lower()
	svcChain := kpname.ServiceChain(name, proto)
	entered, err := chainEntries(nat, svcChain)
	if err != nil {
		return err
	}
	rules, err := nat.Chain(svcChain)
	if err != nil {
		return err
	}
	var packets []uint64
	var probs []float64
	for _, r := range rules {
		if !strings.HasPrefix(r.Rule.Target, "KUBE-SEP-") || r.Rule.Recent != nil {
			continue // affinity checks come before the cascade
		}
		p := ruleProbability(r.Rule)
		run.Rules = append(run.Rules, results.Rule{Chain: svcChain, Index: r.Index, Target: r.Rule.Target, Probability: p, Packets: r.Packets})
		packets = append(packets, r.Packets)
		probs = append(probs, p)
	}
	run.ChainEntered = entered
	fillCascade(run, packets, probs)
	dnat := map[string]uint64{}
	for _, ep := range run.Endpoints {
		if dnat[ep.Endpoint], err = dnatPackets(nat, kpname.EndpointChain(name, proto, ep.Endpoint)); err != nil {
			return err
		}
	}
	setKernelCounts(run, dnat, "iptables DNAT rule packets")
	return nil
}

// chainEntries is the packet counter of the KUBE-SERVICES rule that jumps to
// chain: how many new connections entered the service chain.
func chainEntries(nat *apply.Snapshot, chain string) (uint64, error) {
	rules, err := nat.Chain("KUBE-SERVICES")
	if err != nil {
		return 0, err
	}
	for _, r := range rules {
		if r.Rule.Target == chain {
			return r.Packets, nil
		}
	}
	return 0, fmt.Errorf("no KUBE-SERVICES rule jumps to %s", chain)
}

func dnatPackets(nat *apply.Snapshot, sep string) (uint64, error) {
	rules, err := nat.Chain(sep)
	if err != nil {
		return 0, err
	}
	for _, r := range rules {
		if r.Rule.Target == "DNAT" {
			return r.Packets, nil
		}
	}
	return 0, fmt.Errorf("chain %s has no DNAT rule", sep)
}

// ruleProbability is a rule's nominal statistic probability; a rule without
// one takes everything that reaches it.
func ruleProbability(r *simipt.Rule) float64 {
	if r.Statistic == nil {
		return 1
	}
	return r.Statistic.ProbabilityValue
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

// fillConntrackCounters uses the node's conntrack NEW events, counted while
// the traffic ran, as the kernel's witness where the rules keep no
// per-endpoint counter (nftables: kube-proxy's endpoint chains have none).
func fillConntrackCounters(run *results.FairnessRun, counts map[string]uint64) {
	setKernelCounts(run, counts, "conntrack NEW events by NAT destination")
}

// setKernelCounts records the kernel's count per endpoint ("IP:port") and
// whether it equals what the servers counted. In keep-alive mode the servers
// count requests and the kernel connections, so they are not compared.
func setKernelCounts(run *results.FairnessRun, counts map[string]uint64, what string) {
	agree := true
	for i := range run.Endpoints {
		ep := &run.Endpoints[i]
		ep.DNAT = counts[ep.Endpoint]
		agree = agree && (ep.DNAT == ep.Count || run.Mode == "keepalive")
	}
	run.CountsAgree = agree
	run.KernelCounter = what
}

// ipvsStatsDelay: the kernel folds IPVS per-destination counters into the
// values it reports every two seconds.
const ipvsStatsDelay = 2100 * time.Millisecond

// fillIPVSCounters uses each real server's connection counter as the
// kernel's witness, after waiting for the kernel to publish it.
func fillIPVSCounters(run *results.FairnessRun, v *apply.IPVS, t fairnessTarget) error {
	time.Sleep(ipvsStatsDelay)
	vip := netip.AddrPortFrom(t.svc.ClusterIP, uint16(t.port.Port))
	stats, err := v.RealServerCounters(vip, t.port.Protocol)
	if err != nil {
		return err
	}
	conns := map[string]uint64{}
	for _, s := range stats {
		conns[s.Addr.String()] = s.Connections
	}
	setKernelCounts(run, conns, "ipvs real-server connections")
	return nil
}
