package fairness

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/scenario"
)

// Route is how one fairness target is reached on a run's path: the address
// connected to, the client address connected from, and the endpoints the
// rules promise to send the connections to (none: they promise to drop
// them), as sim/route traces them.
type Route struct {
	Address  netip.AddrPort
	Source   netip.Addr
	Expected []string
	Dropped  bool
}

// routeWith resolves target t, on path p, (a service already projected onto the run's
// family) on the run's path by tracing the rules of the oracle, those of
// the mode its dataplane follows (route.ModeOf).
func routeWith(p topo.Paths, o *route.Oracle, t fairnessTarget, clientIP, clientIPv6 netip.Addr) (Route, error) {
	addr, err := p.Address(t.Service, t.Port)
	if err != nil {
		return Route{}, fmt.Errorf("service %s has %w %s of family %s", t.Name(), topo.ErrNoAddressOfTargetKind, p.Target, p.Family)
	}
	r := Route{Address: addr, Source: p.Source(clientIP, clientIPv6)}
	from := route.FromPod
	if p.From == scenario.FromNode {
		from = route.FromNode
	}
	a, err := o.Route(route.Query{Dst: addr, Proto: t.Port.Protocol, From: from, Src: r.Source})
	if err != nil {
		return Route{}, fmt.Errorf("service %s: %w", t.Name(), err)
	}
	if !a.Dropped {
		r.Expected = a.Addrs()
	}
	r.Dropped = a.Dropped
	return r, nil
}
