package model

import (
	"net/netip"
	"strconv"
)

// mixPlan is what a Mix generator precomputes: where each service's
// endpoints start in the endpoint pool (a prefix sum), and the total.
type mixPlan struct {
	offsets []uint64 // len Services+1
	total   int      // kube-proxy's endpoint total (TotalEndpoints)
}

func newMixPlan(cfg *GeneratorConfig) mixPlan {
	m := cfg.Mix
	p := mixPlan{offsets: make([]uint64, cfg.Services+1)}
	for i := 0; i < cfg.Services; i++ {
		n := m.endpointsOf(i, cfg.Seed, cfg.EndpointsPerService)
		p.offsets[i+1] = p.offsets[i] + uint64(n)
		if mixFamily(m, i, cfg.Seed) == DualStack {
			n *= 2
		}
		p.total += n * m.portsOf(i, cfg.Seed)
	}
	return p
}

func mixFamily(m *Mix, i int, seed uint64) FamilyMix {
	if m.Families == nil {
		return SingleIPv4
	}
	return pick(m.Families, weyl(attrFamily, seed, uint64(i)))
}

// mixedAt builds service i of a Mix generator.
func (g *Generator) mixedAt(i int) *Service {
	cfg, m, seed := &g.cfg, g.cfg.Mix, g.cfg.Seed
	u := func(attr int) float64 { return weyl(attr, seed, uint64(i)) }
	fam := mixFamily(m, i, seed)
	v4 := g.services.addr(uint64(i))
	s := &Service{
		Namespace: cfg.Namespace + "-" + strconv.Itoa(i/cfg.ServicesPerNamespace),
		Name:      "svc-" + strconv.Itoa(i),
		Type:      ClusterIP,
	}
	if m.Types != nil {
		s.Type = pick(m.Types, u(attrType))
	}
	v6 := mapInto(cfg.ServiceCIDRv6, cfg.ServiceCIDR, v4)
	switch fam {
	case SingleIPv6:
		s.ClusterIP = v6
	case DualStack:
		s.ClusterIP, s.SecondaryClusterIP = v4, v6
	default:
		s.ClusterIP = v4
	}
	g.mixPorts(s, i)
	g.mixExternal(s, i, fam, u)
	if u(attrInternalLocal) < m.InternalLocal {
		s.InternalPolicyLocal = true
	}
	if u(attrAffinity) < m.Affinity {
		s.Affinity = Affinity{ClientIP: true, Timeout: DefaultAffinityTimeout}
	}
	g.mixEndpoints(s, i, fam)
	return s
}

func (g *Generator) mixPorts(s *Service, i int) {
	n := g.cfg.Mix.portsOf(i, g.cfg.Seed)
	for k := 0; k < n; k++ {
		p := g.cfg.Port
		if k > 0 {
			p = Port{Name: "port-" + strconv.Itoa(k), Protocol: TCP, Port: 8000 + k, TargetPort: 9000 + k}
		}
		if s.Type == NodePort || s.Type == LoadBalancer {
			p.NodePort = firstMixNodePort + i*g.cfg.Mix.mixNodePortStride() + k
		}
		s.Ports = append(s.Ports, p)
	}
}

// mixExternal gives s its external IP, load-balancer IP, source ranges and
// external traffic policy.
func (g *Generator) mixExternal(s *Service, i int, fam FamilyMix, u func(int) float64) {
	m := g.cfg.Mix
	ext := func(idx uint64) []netip.Addr {
		var out []netip.Addr
		if fam != SingleIPv6 {
			out = append(out, offsetAddr(g.cfg.ExternalCIDR, idx))
		}
		if fam != SingleIPv4 {
			out = append(out, offsetAddr(g.cfg.ExternalCIDRv6, idx))
		}
		return out
	}
	if u(attrExternalIPs) < m.ExternalIPs {
		s.ExternalIPs = ext(2*uint64(i) + 1)
	}
	if s.Type == LoadBalancer {
		s.LoadBalancerIPs = ext(2*uint64(i) + 2)
		if u(attrSourceRanges) < m.SourceRanges {
			if fam != SingleIPv6 {
				s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, mixSourceRange)
			}
			if fam != SingleIPv4 {
				s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, mixSourceRangeV6)
			}
		}
	}
	accessible := s.Type == NodePort || s.Type == LoadBalancer || len(s.ExternalIPs) > 0
	if accessible && u(attrExternalLocal) < m.ExternalLocal {
		s.ExternalPolicyLocal = true
		if s.Type == LoadBalancer {
			s.HealthCheckNodePort = firstMixNodePort + (i+1)*m.mixNodePortStride() - 1
		}
	}
}

// mixEndpoints gives s its endpoints: the pool's addresses for IPv4, the
// same offsets in the IPv6 endpoint CIDR for IPv6, both for dual-stack.
func (g *Generator) mixEndpoints(s *Service, i int, fam FamilyMix) {
	from, to := g.plan.offsets[i], g.plan.offsets[i+1]
	for idx := from; idx < to; idx++ {
		node := "node-1"
		if weyl(attrExternalLocal+100, g.cfg.Seed, idx) < g.cfg.Mix.RemoteEndpoints {
			node = RemoteNode
		}
		v4 := g.endpoints.addr(idx)
		if fam != SingleIPv6 {
			s.Endpoints = append(s.Endpoints, Endpoint{IP: v4, Ready: true, Serving: true, Node: node})
		}
		if fam != SingleIPv4 {
			s.Endpoints = append(s.Endpoints, Endpoint{IP: mapInto(g.cfg.EndpointCIDRv6, g.cfg.EndpointCIDR, v4), Ready: true, Serving: true, Node: node})
		}
	}
}

// mapInto returns the address of v6 prefix p at v4's offset in prefix q.
func mapInto(p, q netip.Prefix, v4 netip.Addr) netip.Addr {
	return offsetAddr(p, uint64(ipv4Uint(v4)-ipv4Uint(q.Masked().Addr())))
}

// offsetAddr returns p's address at offset off (wrapping within p).
func offsetAddr(p netip.Prefix, off uint64) netip.Addr {
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	if bits < 64 {
		off %= uint64(1) << bits
	}
	if p.Addr().Is4() {
		return uint32IPv4(ipv4Uint(p.Addr()) + uint32(off))
	}
	b := p.Addr().As16()
	lo := uint64(0)
	for k := 8; k < 16; k++ {
		lo = lo<<8 | uint64(b[k])
	}
	lo += off
	for k := 15; k >= 8; k-- {
		b[k] = byte(lo)
		lo >>= 8
	}
	return netip.AddrFrom16(b)
}
