package apply

import (
	"context"
	"fmt"
	"strings"

	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/kpname"
)

// iptablesCounting reads the nat table's counters before and after traffic
// to one target.
type iptablesCounting struct {
	ipt    *IPTables
	target Target
	before *Snapshot
}

// Stop reads the nat table again (one iptables-save) and returns, as
// differences since Count, the packets that entered the target's service
// chain, each rule of its statistic cascade, and each endpoint's DNAT rule.
func (c *iptablesCounting) Stop(context.Context) (Counters, error) {
	after, err := c.ipt.Snapshot("nat")
	if err != nil {
		return Counters{}, err
	}
	name, proto := c.target.Name(), c.target.Port.Protocol.Lower()
	svcChain := kpname.ServiceChain(name, proto)
	if c.target.localPolicy() {
		svcChain = kpname.LocalServiceChain(name, proto) // KUBE-SVL: the cascade over local endpoints
	}
	cascade, err := cascadeDelta(c.before, after, svcChain)
	if err != nil && c.target.ViaClusterIP() {
		return Counters{}, err
	}
	// Traffic to a NodePort, externalIP or load-balancer IP enters the
	// service chain through KUBE-EXT (or never, under a Local policy): the
	// cascade is read only for ClusterIP traffic; the DNAT counters always.
	out := Counters{Source: "iptables DNAT rule packets", Endpoints: map[string]uint64{}, Cascade: cascade}
	for _, ep := range c.target.Counted() {
		sep := kpname.EndpointChain(name, proto, ep)
		a, err := dnatPackets(after, sep)
		if err != nil {
			return Counters{}, err
		}
		b, _ := dnatPackets(c.before, sep)
		out.Endpoints[ep] = a - min(a, b)
	}
	return out, nil
}

// cascadeDelta is the statistic cascade of chain: what entered it (from
// KUBE-SERVICES, or KUBE-EXT-/KUBE-FW- chains for external traffic) and
// each endpoint rule's counter, as after minus before.
func cascadeDelta(before, after *Snapshot, chain string) (*Cascade, error) {
	enteredAfter, err := chainEntries(after, chain)
	if err != nil {
		return nil, err
	}
	enteredBefore, _ := chainEntries(before, chain)
	rules, err := after.Chain(chain)
	if err != nil {
		return nil, err
	}
	old, _ := before.Chain(chain)
	c := &Cascade{Chain: chain, Entered: enteredAfter - min(enteredAfter, enteredBefore)}
	for _, r := range rules {
		if !strings.HasPrefix(r.Rule.Target, "KUBE-SEP-") || r.Rule.Recent != nil {
			continue // affinity checks come before the cascade
		}
		packets := r.Packets
		if r.Index-1 < len(old) {
			packets -= min(packets, old[r.Index-1].Packets)
		}
		c.Rules = append(c.Rules, CascadeRule{Index: r.Index, Target: r.Rule.Target, Probability: ruleProbability(r.Rule), Packets: packets})
	}
	return c, nil
}

// chainEntries is the packet counter of the KUBE-SERVICES rule that jumps to
// chain: how many new connections entered the service chain.
func chainEntries(nat *Snapshot, chain string) (uint64, error) {
	var entered uint64
	found := false
	for _, c := range nat.table.Chains {
		for _, r := range chainCounters(c) {
			if r.Rule.Target == chain {
				entered, found = entered+r.Packets, true
			}
		}
	}
	if !found {
		return 0, fmt.Errorf("no rule jumps to %s in %s", chain, nat.source)
	}
	return entered, nil
}

func dnatPackets(nat *Snapshot, sep string) (uint64, error) {
	rules, err := nat.Chain(sep)
	if err != nil {
		return 0, err
	}
	for _, r := range rules {
		if r.Rule.Target == "DNAT" {
			return r.Packets, nil
		}
	}
	return 0, fmt.Errorf("chain %s has no DNAT rule in %s", sep, nat.source)
}

// ruleProbability is a rule's nominal statistic probability; a rule without
// one takes everything that reaches it.
func ruleProbability(r *simipt.Rule) float64 {
	if r.Statistic == nil {
		return 1
	}
	return r.Statistic.ProbabilityValue
}
