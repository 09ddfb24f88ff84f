package sweep

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// uniformTargets are the addresses the uniform position spreads its probes
// over when the fillers are shaped by a synthetic.mix: each service's IPv4
// ClusterIP at its first port, when that port is TCP (the probe connects)
// and kube-proxy's rules for dataplane (sim/route's oracle, tracing them
// from the client pod) send the connection to an endpoint. A mix's
// IPv6-only services, and services whose rules reject or drop (no
// endpoints, internalTrafficPolicy: Local with none on this node), are
// left out: the probe measures first packets that reach a pod. Without a
// mix every service qualifies and nil is returned (the picker draws from
// all of them).
func uniformTargets(m *model.Model, mixed bool, dataplane string, s apply.Settings) ([]netip.AddrPort, error) {
	if !mixed {
		return nil, nil
	}
	mode, err := route.ModeOf(dataplane)
	if err != nil {
		return nil, err
	}
	oracle, err := route.New(m, route.Config{Mode: mode, Config: s.Config})
	if err != nil {
		return nil, fmt.Errorf("uniform position: routes through %s: %w", dataplane, err)
	}
	var out []netip.AddrPort
	for i := range m.Services.Len() {
		svc := m.Services.At(i)
		addr, ok := ipv4ClusterIP(svc)
		if !ok || len(svc.Ports) == 0 || svc.Ports[0].Protocol != model.TCP {
			continue
		}
		dst := netip.AddrPortFrom(addr, uint16(svc.Ports[0].Port))
		ans, err := oracle.Route(route.Query{Dst: dst, Proto: model.TCP, From: route.FromPod, Src: topo.DefaultClientIP})
		if err != nil {
			return nil, fmt.Errorf("uniform position: route %s/%s at %s: %w", svc.Namespace, svc.Name, dst, err)
		}
		if !ans.Dropped && len(ans.Endpoints) > 0 {
			out = append(out, dst)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("uniform position: none of the %d services has an IPv4 ClusterIP whose first (TCP) port reaches an endpoint; give synthetic.mix some IPv4 or dual-stack services with endpoints", m.Services.Len())
	}
	return out, nil
}

// ipv4ClusterIP is the service's IPv4 ClusterIP (its primary or, dual-stack,
// its secondary one).
func ipv4ClusterIP(svc *model.Service) (netip.Addr, bool) {
	for _, a := range []netip.Addr{svc.ClusterIP, svc.SecondaryClusterIP} {
		if a.IsValid() && a.Is4() {
			return a, true
		}
	}
	return netip.Addr{}, false
}
