package audit

import (
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

// owners finds the Service an object serves when its name and comment do
// not say: by the addresses and node ports the objects give each Service.
type owners struct {
	addrs     map[netip.Addr]string // ClusterIPs, load-balancer and external IPs
	nodePorts map[int]string
	endpoints map[netip.Addr]string
}

func newOwners(m *model.Model) *owners {
	o := &owners{addrs: map[netip.Addr]string{}, nodePorts: map[int]string{}, endpoints: map[netip.Addr]string{}}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		key := kube.Key(s)
		for _, a := range append(append([]netip.Addr{s.ClusterIP, s.SecondaryClusterIP}, s.LoadBalancerIPs...), s.ExternalIPs...) {
			if a.IsValid() {
				o.addrs[a] = key
			}
		}
		for _, p := range s.Ports {
			if p.NodePort > 0 {
				o.nodePorts[p.NodePort] = key
			}
		}
		if s.HealthCheckNodePort > 0 {
			o.nodePorts[s.HealthCheckNodePort] = key
		}
		for _, e := range s.Endpoints {
			if _, ok := o.endpoints[e.IP]; !ok {
				o.endpoints[e.IP] = key
			}
		}
	}
	return o
}

// ofAddr returns the Service of a service address, else of an endpoint
// address, else "".
func (o *owners) ofAddr(a netip.Addr) string {
	if s, ok := o.addrs[a.Unmap()]; ok {
		return s
	}
	return o.endpoints[a.Unmap()]
}

// ofText returns the owner of the first address in text ("10.0.0.1 . tcp
// . 80", "10.0.0.1,tcp:80"), "" when it has none or no Service has it.
func (o *owners) ofText(text string) string {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == ':' && !strings.Contains(text, "::") }) {
		if a, err := netip.ParseAddr(w); err == nil {
			return o.ofAddr(a)
		}
		if p, err := netip.ParsePrefix(w); err == nil && p.IsSingleIP() {
			return o.ofAddr(p.Addr())
		}
	}
	return ""
}

// serviceOfPortName returns "ns/name" of kube-proxy's ServicePortName
// text ("ns/name:port", "ns/name"), "" when s is not one.
func serviceOfPortName(s string) string {
	s, _, _ = strings.Cut(s, " ")
	s, _, _ = strings.Cut(s, ":")
	if ns, name, ok := strings.Cut(s, "/"); ok && ns != "" && name != "" && !strings.Contains(name, "/") {
		return s
	}
	return ""
}
