package ipvstrace

import (
	"math"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

func load(t *testing.T, name string) *ipvs.Table {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := ipvs.ParseIPVSAdm(f)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func pkt(src, dst string, port uint16, proto string) trace.Packet {
	return trace.Packet{Src: netip.MustParseAddr(src), Dst: netip.MustParseAddr(dst), Proto: proto, DPort: port, SPort: 40000, InIface: "eth0", OutIface: "eth0"}
}

// TestSchedulers: rr 1/3 each, wrr 2:1:1 gives 0.5/0.25/0.25, sh one
// server per source, on hand-written ipvsadm -Sn output
// (testdata/ipvsadm-Sn.txt).
func TestSchedulers(t *testing.T) {
	tr, err := New(load(t, "testdata/ipvsadm-Sn.txt"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pkt  trace.Packet
		want []float64
	}{
		{"rr, three real servers", pkt("10.244.9.9", "10.96.0.1", 443, "tcp"), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"wrr 2:1:1", pkt("10.244.9.9", "10.96.5.5", 80, "tcp"), []float64{0.5, 0.25, 0.25}},
		{"weight 0 is quiesced", pkt("10.244.9.9", "10.96.7.7", 80, "tcp"), []float64{0.5, 0, 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tr.Trace(tc.pkt)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Endpoints) != len(tc.want) {
				t.Fatalf("endpoints %+v", r.Endpoints)
			}
			for i, e := range r.Endpoints {
				if math.Abs(e.Probability-tc.want[i]) > 1e-15 {
					t.Errorf("%v: p=%v, want %v", e.Addr, e.Probability, tc.want[i])
				}
			}
		})
	}
	// sh without the order the servers were added: each gets its share
	// of the buckets.
	r, err := tr.Trace(pkt("10.244.0.7", "10.96.0.10", 53, "udp"))
	if err != nil || r.Endpoints[0].Probability != 0.5 || r.Endpoints[1].Probability != 0.5 || !strings.Contains(strings.Join(r.Flags, " "), "AddedOrder") {
		t.Errorf("sh without AddedOrder: %+v %v", r, err)
	}
	// With it, each source gets one server; over many sources both are
	// used about evenly (128 buckets each).
	tr, err = New(load(t, "testdata/ipvsadm-Sn.txt"), nil, Options{AddedOrder: map[string][]netip.AddrPort{
		"-u 10.96.0.10:53": {netip.MustParseAddrPort("10.244.2.10:53"), netip.MustParseAddrPort("10.244.1.10:53")}}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[netip.AddrPort]int{}
	for i := range 256 {
		r, err := tr.Trace(pkt(netip.AddrFrom4([4]byte{10, 244, byte(i), 7}).String(), "10.96.0.10", 53, "udp"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range r.Endpoints {
			if e.Probability == 1 {
				seen[e.Addr]++
				n++
			}
		}
		if n != 1 {
			t.Fatalf("sh gave %+v", r.Endpoints)
		}
	}
	if len(seen) != 2 {
		t.Errorf("sh used %v", seen)
	}
}

// TestSHHash pins hash_32 for 10.0.0.1 against a value computed apart
// (python3: ((0x0a000001*0x61C88647) & 0xffffffff) >> 24).
func TestSHHash(t *testing.T) {
	if got := hash32(0x0a000001, 8); got != 39 {
		t.Errorf("hash32(10.0.0.1) = %d, want 39", got)
	}
}

// TestWithIPTables: the IPVS-mode iptables rules and ipsets decide first;
// a packet to a cluster IP from outside the pod CIDR is marked for
// masquerade.
func TestWithIPTables(t *testing.T) {
	b, err := os.ReadFile("../../../lab/verifytrace/testdata/kube-proxy-ipvs.rules")
	if err != nil {
		t.Fatal(err)
	}
	d, err := iptables.ParseString(string(b))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../../lab/verifytrace/testdata/kube-proxy-ipvs.ipsets")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sets, err := ipvs.ParseIPSetSave(f)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(load(t, "testdata/ipvsadm-Sn.txt"), d, Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("192.168.0.2")}, IPSets: sets})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.Trace(pkt("203.0.113.9", "10.96.5.5", 80, "tcp"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != iptrace.Accept || !r.Masquerade || r.Service != "-t 10.96.5.5:80" || len(r.Endpoints) != 3 {
		t.Errorf("got %+v", r)
	}
	r, err = tr.Trace(pkt("10.244.1.9", "10.96.5.5", 80, "tcp"))
	if err != nil || r.Masquerade {
		t.Errorf("from a pod: %+v %v", r, err)
	}
	r, err = tr.Trace(pkt("10.244.1.9", "10.96.5.5", 81, "tcp"))
	if err != nil || r.Verdict != iptrace.Reject || !strings.Contains(strings.Join(r.Flags, " "), "before IPVS") {
		t.Errorf("to a port without a virtual server: %+v %v", r, err)
	}
}

// TestGuestIPVSAdm: the real ipvsadm -Sn output captured in the guest
// gives 1/3 each for rr over three servers and 0.5/0.25/0.25 for wrr 2:1:1.
func TestGuestIPVSAdm(t *testing.T) {
	tr, err := New(load(t, "testdata/guest-ipvsadm-Sn.txt"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for vip, want := range map[string][]float64{"10.96.0.1:443": {1.0 / 3, 1.0 / 3, 1.0 / 3}, "10.96.5.5:80": {0.5, 0.25, 0.25}} {
		ap := netip.MustParseAddrPort(vip)
		r, err := tr.Trace(trace.Packet{Src: netip.MustParseAddr("10.244.9.9"), Dst: ap.Addr(), DPort: ap.Port(), Proto: "tcp"})
		if err != nil || len(r.Endpoints) != 3 {
			t.Fatalf("%s: %+v %v", vip, r, err)
		}
		for i, e := range r.Endpoints {
			if e.Probability != want[i] {
				t.Errorf("%s %v: %v, want %v", vip, e.Addr, e.Probability, want[i])
			}
		}
	}
}
