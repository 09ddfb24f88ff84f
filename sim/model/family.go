package model

import "net/netip"

// Family is an IP family as kube-proxy runs one proxier per family.
type Family int

// The families. The zero value is IPv4, so existing models are IPv4.
const (
	IPv4 Family = iota
	IPv6
)

// String returns "IPv4" or "IPv6", as Kubernetes spells ipFamilies.
func (f Family) String() string {
	if f == IPv6 {
		return "IPv6"
	}
	return "IPv4"
}

// FamilyOf returns the family of a.
func FamilyOf(a netip.Addr) Family {
	if a.Is6() && !a.Is4In6() {
		return IPv6
	}
	return IPv4
}

// Has reports whether a is a valid address of family f.
func (f Family) Has(a netip.Addr) bool { return a.IsValid() && FamilyOf(a) == f }

// Families returns the families the model's services use, IPv4 first:
// what a dual-stack node runs a proxier for.
func Families(l List) []Family {
	var v4, v6 bool
	for i := 0; i < l.Len() && !(v4 && v6); i++ {
		s := l.At(i)
		for _, a := range []netip.Addr{s.ClusterIP, s.SecondaryClusterIP} {
			if a.IsValid() {
				v4 = v4 || FamilyOf(a) == IPv4
				v6 = v6 || FamilyOf(a) == IPv6
			}
		}
	}
	var out []Family
	if v4 || !v6 {
		out = append(out, IPv4)
	}
	if v6 {
		out = append(out, IPv6)
	}
	return out
}

// ForFamily returns m as the proxier of family f sees it: each service's
// ClusterIP of that family (invalid when it has none, so the service is
// Skipped), only that family's endpoints, external and load-balancer IPs
// and source ranges, and the cluster's addresses of that family. A model
// whose services are all of family f already is returned as it is.
func ForFamily(m Model, f Family) Model {
	out := m
	out.Family = f
	out.Cluster = m.Cluster.ForFamily(f)
	if f == IPv4 && !mixed(m.Services) {
		return out
	}
	out.Services = familyList{m.Services, f}
	return out
}

// ForFamily returns the cluster settings of family f: for IPv6, the
// IPv6 node IP and CIDRs take the places of the IPv4 ones.
func (c Cluster) ForFamily(f Family) Cluster {
	if f != IPv6 {
		return c
	}
	out := c
	if c.NodeIPv6.IsValid() || FamilyOf(c.NodeIP) != IPv6 {
		out.NodeIP = c.NodeIPv6
	}
	if c.ClusterCIDRv6.IsValid() || FamilyOf(c.ClusterCIDR.Addr()) != IPv6 {
		out.ClusterCIDR = c.ClusterCIDRv6
	}
	if c.ServiceCIDRv6.IsValid() || FamilyOf(c.ServiceCIDR.Addr()) != IPv6 {
		out.ServiceCIDR = c.ServiceCIDRv6
	}
	return out
}

// mixed reports whether any service has an address other than IPv4, so
// that an IPv4 projection must filter.
func mixed(l List) bool {
	if l.Len() == 0 {
		return false
	}
	fams := Families(l)
	return len(fams) > 1 || fams[0] != IPv4 || anyIPv6Member(l)
}

func anyIPv6Member(l List) bool {
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		for _, e := range s.Endpoints {
			if FamilyOf(e.IP) == IPv6 {
				return true
			}
		}
		for _, a := range append(append([]netip.Addr(nil), s.ExternalIPs...), s.LoadBalancerIPs...) {
			if FamilyOf(a) == IPv6 {
				return true
			}
		}
		for _, p := range s.LoadBalancerSourceRanges {
			if FamilyOf(p.Addr()) == IPv6 {
				return true
			}
		}
	}
	return false
}

// familyList projects each service of a List onto one family.
type familyList struct {
	l List
	f Family
}

func (fl familyList) Len() int { return fl.l.Len() }

func (fl familyList) At(i int) *Service {
	s := *fl.l.At(i)
	p := ProjectService(&s, fl.f)
	return &p
}

// ProjectService returns s as family f's proxier sees it (see ForFamily).
func ProjectService(s *Service, f Family) Service {
	out := *s
	out.SecondaryClusterIP = netip.Addr{}
	switch {
	case f.Has(s.ClusterIP):
	case f.Has(s.SecondaryClusterIP):
		out.ClusterIP = s.SecondaryClusterIP
	default:
		out.ClusterIP = netip.Addr{}
	}
	out.Endpoints = filter(s.Endpoints, func(e Endpoint) bool { return f.Has(e.IP) })
	out.ExternalIPs = filter(s.ExternalIPs, f.Has)
	out.LoadBalancerIPs = filter(s.LoadBalancerIPs, f.Has)
	out.LoadBalancerSourceRanges = filter(s.LoadBalancerSourceRanges, func(p netip.Prefix) bool { return f.Has(p.Addr()) })
	return out
}

func filter[T any](in []T, keep func(T) bool) []T {
	if in == nil {
		return nil
	}
	out := make([]T, 0, len(in))
	for _, v := range in {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}
