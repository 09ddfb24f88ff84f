package model

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// bitmap marks addresses within a prefix to detect collisions.
type bitmap struct {
	base netip.Prefix
	bits []uint64
}

func newBitmap(p netip.Prefix) *bitmap {
	return &bitmap{base: p, bits: make([]uint64, (1<<(32-p.Bits()))/64+1)}
}

// mark sets ip's bit and reports whether it was already set.
func (b *bitmap) mark(t *testing.T, ip netip.Addr) bool {
	if !b.base.Contains(ip) {
		t.Fatalf("%s outside %s", ip, b.base)
	}
	off := ipv4Uint(ip) - ipv4Uint(b.base.Addr())
	w, m := off/64, uint64(1)<<(off%64)
	seen := b.bits[w]&m != 0
	b.bits[w] |= m
	return seen
}

func TestGeneratorNoCollisionsAtScale(t *testing.T) {
	tests := []struct {
		services, endpoints int
	}{
		{1, 1}, {1000, 10}, {1_000_000, 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.services, tt.endpoints), func(t *testing.T) {
			if testing.Short() && tt.services > 1000 {
				t.Skip("-short: skipping the million-service case")
			}
			g, err := NewGenerator(GeneratorConfig{Services: tt.services, EndpointsPerService: tt.endpoints, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			svcSeen, epSeen := newBitmap(g.Config().ServiceCIDR), newBitmap(g.Config().EndpointCIDR)
			for i := 0; i < g.Len(); i++ {
				s := g.At(i)
				if svcSeen.mark(t, s.ClusterIP) {
					t.Fatalf("service %d: clusterIP %s handed out twice", i, s.ClusterIP)
				}
				for _, e := range s.Endpoints {
					if DefaultPodCIDR.Contains(e.IP) {
						t.Fatalf("service %d: endpoint %s inside the excluded pod CIDR", i, e.IP)
					}
					if epSeen.mark(t, e.IP) {
						t.Fatalf("service %d: endpoint %s handed out twice", i, e.IP)
					}
				}
			}
		})
	}
}

func TestGeneratorIsDeterministic(t *testing.T) {
	dump := func(seed uint64) string {
		g, err := NewGenerator(GeneratorConfig{Services: 50, EndpointsPerService: 3, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := 0; i < g.Len(); i++ {
			fmt.Fprintf(&b, "%+v\n", *g.At(i))
		}
		return b.String()
	}
	first, again := dump(1), dump(1) // two generators from the same seed
	if first != again {
		t.Fatal("same seed gave different services")
	}
	if dump(1) == dump(2) {
		t.Fatal("different seeds gave identical services")
	}
}

func TestGeneratorAvoidsReservedClusterIPs(t *testing.T) {
	cidr := netip.MustParsePrefix("10.96.0.0/28") // 16 addresses, 13 usable
	var reserved []netip.Addr
	for _, s := range []string{"10.96.0.5", "10.96.0.9", "172.30.0.1"} {
		reserved = append(reserved, netip.MustParseAddr(s))
	}
	g, err := NewGenerator(GeneratorConfig{Services: 11, ServiceCIDR: cidr, ReservedClusterIPs: reserved, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[netip.Addr]bool{}
	for i := 0; i < g.Len(); i++ {
		ip := g.At(i).ClusterIP
		if ip == reserved[0] || ip == reserved[1] || seen[ip] {
			t.Fatalf("service %d got %s (reserved or repeated)", i, ip)
		}
		if ip == netip.MustParseAddr("10.96.0.0") || ip == netip.MustParseAddr("10.96.0.1") || ip == netip.MustParseAddr("10.96.0.15") {
			t.Fatalf("service %d got the reserved low/broadcast address %s", i, ip)
		}
		seen[ip] = true
	}
	if _, err := NewGenerator(GeneratorConfig{Services: 12, ServiceCIDR: cidr, ReservedClusterIPs: reserved}); err == nil {
		t.Fatal("12 services in a /28 with 2 reserved should not fit")
	}
}

func TestPlace(t *testing.T) {
	mk := func(names ...string) Slice {
		var s Slice
		for _, n := range names {
			s = append(s, Service{Name: n})
		}
		return s
	}
	targets, fillers := mk("T"), mk("a", "b", "c", "d")
	tests := []struct {
		pos  string
		want string
	}{
		{"first", "Tabcd"}, {"middle", "abTcd"}, {"last", "abcdT"}, {"1", "aTbcd"}, {"99", "abcdT"},
	}
	for _, tt := range tests {
		pos, err := ParsePosition(tt.pos)
		if err != nil {
			t.Fatal(err)
		}
		l := Place(targets, fillers, pos)
		var got string
		for i := 0; i < l.Len(); i++ {
			got += l.At(i).Name
		}
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.pos, got, tt.want)
		}
	}
	if _, err := ParsePosition("-3"); err == nil {
		t.Error("negative position accepted")
	}
}

func TestMasqueradeMark(t *testing.T) {
	if got := DefaultCluster().MasqueradeMark(); got != "0x00004000" {
		t.Fatalf("mark = %s", got)
	}
}

func TestInsert(t *testing.T) {
	fillers := Slice{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	l := Insert(fillers, []Insertion{{Before: 4, Service: Service{Name: "L"}}, {Before: 0, Service: Service{Name: "F"}}, {Before: 2, Service: Service{Name: "M"}}})
	var got string
	for i := 0; i < l.Len(); i++ {
		got += l.At(i).Name
	}
	if got != "FabMcdL" {
		t.Fatalf("got %s, want FabMcdL", got)
	}
	if IndexOf(l, "M") != 3 {
		t.Fatalf("IndexOf(M) = %d", IndexOf(l, "M"))
	}
}
