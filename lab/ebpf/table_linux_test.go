package ebpf

import (
	"maps"
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func TestEndpointsOf(t *testing.T) {
	a, b, c := netip.MustParseAddr("10.0.0.3"), netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	port := model.Port{Protocol: model.TCP, Port: 80, TargetPort: 8080}
	for _, tc := range []struct {
		name string
		eps  []model.Endpoint
		want []string
	}{
		{"ready, sorted", []model.Endpoint{{IP: a, Ready: true}, {IP: b, Ready: true}}, []string{"10.0.0.1:8080", "10.0.0.3:8080"}},
		{"terminating ignored while one is ready", []model.Endpoint{{IP: a, Ready: true}, {IP: b, Serving: true, Terminating: true}}, []string{"10.0.0.3:8080"}},
		{"serving-terminating fallback", []model.Endpoint{{IP: a}, {IP: b, Serving: true, Terminating: true}, {IP: c, Terminating: true}}, []string{"10.0.0.1:8080"}},
		{"serving but not terminating is no fallback", []model.Endpoint{{IP: a, Serving: true}}, nil},
		{"IPv6 skipped", []model.Endpoint{{IP: netip.MustParseAddr("fd00::1"), Ready: true}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &model.Service{Endpoints: tc.eps}
			var got []string
			for _, ap := range endpointsOf(svc, port) {
				got = append(got, ap.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestServiceKey(t *testing.T) {
	svc := &model.Service{ClusterIP: netip.MustParseAddr("10.96.1.2")}
	for _, tc := range []struct {
		port model.Port
		ok   bool
		want svclbSvcKey
	}{
		// Network byte order in memory: 10.96.1.2 is bytes 0a 60 01 02.
		{model.Port{Protocol: model.TCP, Port: 80}, true, svclbSvcKey{Vip: ip4(svc.ClusterIP), Port: port16(80), Proto: 6}},
		{model.Port{Protocol: model.UDP, Port: 53}, true, svclbSvcKey{Vip: ip4(svc.ClusterIP), Port: port16(53), Proto: 17}},
		{model.Port{Protocol: model.SCTP, Port: 80}, false, svclbSvcKey{}},
		{model.Port{Protocol: model.TCP, Port: 0}, false, svclbSvcKey{}},
	} {
		got, ok := serviceKey(svc, tc.port)
		if ok != tc.ok || got != tc.want {
			t.Errorf("serviceKey(%v) = %+v, %v; want %+v, %v", tc.port, got, ok, tc.want, tc.ok)
		}
	}
	if b := []byte{byte(port16(80)), byte(port16(80) >> 8)}; b[0] != 0 || b[1] != 80 {
		t.Errorf("port16(80) lays out as % x in memory, want 00 50", b)
	}
}

func TestSetBackendsKeepsCounters(t *testing.T) {
	tb := newTable(Capacity{ServicePorts: 4, Backends: 4})
	sp, err := tb.port(svclbSvcKey{Vip: 1})
	if err != nil {
		t.Fatal(err)
	}
	ap := func(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
	for _, step := range []struct {
		addrs   []netip.AddrPort
		changed []uint32
		err     bool
	}{
		{[]netip.AddrPort{ap("10.0.0.1:80"), ap("10.0.0.2:80")}, []uint32{0, 1}, false},
		{[]netip.AddrPort{ap("10.0.0.1:80"), ap("10.0.0.2:80"), ap("10.0.0.3:80")}, []uint32{2}, false},
		{[]netip.AddrPort{ap("10.0.0.0:80"), ap("10.0.0.1:80"), ap("10.0.0.2:80"), ap("10.0.0.3:80")}, []uint32{0, 1, 2, 3}, false},
		{[]netip.AddrPort{ap("10.0.0.9:80"), ap("10.0.0.1:80")}, nil, true}, // a 5th counter: over capacity
	} {
		changed, err := tb.setBackends(sp, step.addrs)
		if (err != nil) != step.err || !slices.Equal(changed, step.changed) {
			t.Fatalf("setBackends(%v) = %v, %v; want %v (error %v)", step.addrs, changed, err, step.changed, step.err)
		}
	}
	counters := map[string]uint32{}
	for _, b := range sp.backends {
		counters[b.addr.String()] = b.counter
	}
	if want := map[string]uint32{"10.0.0.0:80": 3, "10.0.0.1:80": 0, "10.0.0.2:80": 1, "10.0.0.3:80": 2}; !maps.Equal(counters, want) {
		t.Errorf("counters %v, want %v (kept across changes)", counters, want)
	}
}
