package model

import (
	"net/netip"
	"testing"
)

func TestForFamilyProjectsDualStack(t *testing.T) {
	a := netip.MustParseAddr
	svc := Service{
		Namespace: "ns", Name: "dual", Type: ClusterIP,
		ClusterIP: a("10.96.0.10"), SecondaryClusterIP: a("fd00::10"),
		Endpoints:                []Endpoint{{IP: a("10.0.0.1"), Ready: true}, {IP: a("fd01::1"), Ready: true}},
		ExternalIPs:              []netip.Addr{a("192.0.2.1"), a("2001:db8::1")},
		LoadBalancerSourceRanges: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:1::/48")},
	}
	v4only := Service{Namespace: "ns", Name: "v4", ClusterIP: a("10.96.0.11")}
	headless := Service{Namespace: "ns", Name: "headless"}
	m := Model{Cluster: DefaultCluster(), Services: Slice{svc, v4only, headless}}
	m.Cluster.ClusterCIDRv6 = netip.MustParsePrefix("fd01::/48")
	tests := []struct {
		f                  Family
		clusterIP, ep, ext string
		v4Skipped          bool
		cidr               string
	}{
		{IPv4, "10.96.0.10", "10.0.0.1", "192.0.2.1", false, "10.0.0.0/8"},
		{IPv6, "fd00::10", "fd01::1", "2001:db8::1", true, "fd01::/48"},
	}
	for _, tt := range tests {
		t.Run(tt.f.String(), func(t *testing.T) {
			p := ForFamily(m, tt.f)
			if p.Family != tt.f || p.Cluster.ClusterCIDR.String() != tt.cidr {
				t.Fatalf("family %v cluster CIDR %v, want %v %s", p.Family, p.Cluster.ClusterCIDR, tt.f, tt.cidr)
			}
			s := p.Services.At(0)
			if s.ClusterIP.String() != tt.clusterIP || len(s.Endpoints) != 1 || s.Endpoints[0].IP.String() != tt.ep ||
				len(s.ExternalIPs) != 1 || s.ExternalIPs[0].String() != tt.ext || len(s.LoadBalancerSourceRanges) != 1 {
				t.Fatalf("projected %+v", s)
			}
			if got := p.Services.At(1).Skipped(); got != tt.v4Skipped {
				t.Errorf("IPv4-only service skipped = %v, want %v", got, tt.v4Skipped)
			}
			if !p.Services.At(2).Skipped() {
				t.Error("headless service not skipped")
			}
		})
	}
	if got := Families(m.Services); len(got) != 2 {
		t.Errorf("Families = %v, want both", got)
	}
}
