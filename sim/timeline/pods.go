package timeline

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// podAddrs hands out the addresses of new pods (a scale up, a rolling
// update's replacements): the addresses of the pod CIDR in order, skipping
// every address the scenario's endpoints and the lab's client pod use. An
// address is never handed out twice, as a cluster's IPAM would not reuse a
// deleted pod's address at once.
type podAddrs struct {
	cidr netip.Prefix
	last netip.Addr
	used map[netip.Addr]bool
}

func newPodAddrs(cidr netip.Prefix, explicit model.Slice) *podAddrs {
	p := &podAddrs{cidr: cidr, last: cidr.Masked().Addr(), used: map[netip.Addr]bool{netip.MustParseAddr(scenario.ClientPodIP): true}}
	for _, s := range explicit {
		for _, e := range s.Endpoints {
			p.used[e.IP] = true
		}
	}
	return p
}

// next is the next free address (the zero Addr when the CIDR is full;
// validation bounds the pods a timeline adds far below a /16).
func (p *podAddrs) next() netip.Addr {
	for a := p.last.Next(); a.IsValid() && p.cidr.Contains(a); a = a.Next() {
		if !p.used[a] {
			p.used[a], p.last = true, a
			return a
		}
	}
	return netip.Addr{}
}
