package route

import (
	"net/netip"
	"strings"
	"testing"
)

// TestIPVSHairpinAndUnusedPorts: IPVS mode's own jump rules and
// KUBE-LOOP-BACK, per real server. A pod connecting to its own service
// is masqueraded only on the connection scheduled to itself; a port of a
// ClusterIP no service uses meets KUBE-IPVS-FILTER's REJECT (the ClusterIP
// is local, on kube-ipvs0); a virtual server without real servers rejects
// (ip_vs_leave answers ICMP port unreachable).
func TestIPVSHairpinAndUnusedPorts(t *testing.T) {
	o, err := New(features(), Config{Mode: IPVS})
	if err != nil {
		t.Fatal(err)
	}
	self := ip("10.244.0.1")
	a, err := o.Route(Query{Dst: netip.MustParseAddrPort("10.96.0.1:80"), Src: self})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := show(a), "10.244.0.1:8080<-192.168.99.1 10.244.1.1:8080<-10.244.0.1"; got != want {
		t.Errorf("hairpin through IPVS: %s, want %s", got, want)
	}
	for _, tt := range []struct{ name, dst string }{
		{"unused port of a ClusterIP", "10.96.0.1:81"},
		{"virtual server without real servers", "10.96.0.8:80"},
	} {
		a, err := o.Route(Query{Dst: netip.MustParseAddrPort(tt.dst), Src: pod})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Dropped || !strings.EqualFold(a.Verdict, "REJECT") {
			t.Errorf("%s: %s, verdict %s; want rejected", tt.name, show(a), a.Verdict)
		}
	}
}
