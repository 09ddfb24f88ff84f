package ipvs

import (
	"bytes"
	"io"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// TestCountsPerServiceShape pins what one service of each shape costs in
// each payload.
func TestCountsPerServiceShape(t *testing.T) {
	remote := svc3()
	remote.Endpoints = endpoints("node-2", "10.0.3.2", "10.0.3.3")
	notReady := svc3()
	notReady.Endpoints[0].Ready = false
	servingTerminating := svc3()
	for i := range servingTerminating.Endpoints {
		servingTerminating.Endpoints[i].Ready = false
		servingTerminating.Endpoints[i].Terminating = true
	}
	servingTerminating.Endpoints[0].Serving = true
	twoPorts := svc3()
	twoPorts.Ports = append(twoPorts.Ports, model.Port{Name: "p443", Protocol: model.TCP, Port: 443, TargetPort: 8443})
	headless := svc3()
	headless.ClusterIP = netip.Addr{}
	noPorts := svc3()
	noPorts.Ports = nil
	nodePortNoIPs := svcNodePort()
	five := svc3()
	five.Endpoints = endpoints("node-1", "10.0.3.1", "10.0.3.2", "10.0.3.3", "10.0.3.4", "10.0.3.5")
	withIPs := DefaultOptions()
	withIPs.NodeIPs = nodeIPs

	tests := []struct {
		name         string
		svc          model.Service
		opts         Options
		virtual      int // IPVS virtual servers
		real         int // IPVS real servers
		members      map[string]int
		iptRules     int
		boundAddress int
	}{
		{"no endpoints", svc6(), DefaultOptions(), 1, 0, map[string]int{"KUBE-CLUSTER-IP": 1, "KUBE-IPVS-IPS": 1, "KUBE-LOOP-BACK": 0}, 19, 1},
		{"two local endpoints", svc3(), DefaultOptions(), 1, 2, map[string]int{"KUBE-CLUSTER-IP": 1, "KUBE-LOOP-BACK": 2}, 20, 1},
		{"five local endpoints", five, DefaultOptions(), 1, 5, map[string]int{"KUBE-CLUSTER-IP": 1, "KUBE-LOOP-BACK": 5}, 20, 1},
		{"remote endpoints", remote, DefaultOptions(), 1, 2, map[string]int{"KUBE-LOOP-BACK": 0}, 19, 1},
		// kube-proxy puts local endpoints in KUBE-LOOP-BACK ready or not.
		{"one endpoint not ready", notReady, DefaultOptions(), 1, 1, map[string]int{"KUBE-LOOP-BACK": 2}, 20, 1},
		{"serving and terminating only", servingTerminating, DefaultOptions(), 1, 1, map[string]int{"KUBE-LOOP-BACK": 2}, 20, 1},
		{"two ports", twoPorts, DefaultOptions(), 2, 4, map[string]int{"KUBE-CLUSTER-IP": 2, "KUBE-IPVS-IPS": 1, "KUBE-LOOP-BACK": 4}, 20, 1},
		{"affinity", svcAffinity(), DefaultOptions(), 1, 2, map[string]int{"KUBE-CLUSTER-IP": 1}, 20, 1},
		{"headless", headless, DefaultOptions(), 0, 0, map[string]int{"KUBE-CLUSTER-IP": 0, "KUBE-IPVS-IPS": 0}, 17, 0},
		{"no ports", noPorts, DefaultOptions(), 0, 0, map[string]int{"KUBE-IPVS-IPS": 0}, 17, 0},
		{"nodeport tcp+udp, 2 node IPs", svcNodePort(), withIPs, 6, 12,
			map[string]int{"KUBE-CLUSTER-IP": 2, "KUBE-NODE-PORT-TCP": 1, "KUBE-NODE-PORT-UDP": 1, "KUBE-LOOP-BACK": 2}, 22, 1},
		{"nodeport without node IPs", nodePortNoIPs, DefaultOptions(), 2, 4, map[string]int{"KUBE-NODE-PORT-TCP": 0}, 20, 1},
		{"nodeport sctp, 2 node IPs", svcSCTPNodePort(), withIPs, 3, 3, map[string]int{"KUBE-NODE-PORT-SCTP-HASH": 2}, 21, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel(tt.svc)
			r := renderAndReplay(t, m, tt.opts)
			if got := len(r.ipvs.services); got != tt.virtual {
				t.Errorf("virtual servers = %d, want %d", got, tt.virtual)
			}
			if got := r.ipvs.realServerCount(); got != tt.real {
				t.Errorf("real servers = %d, want %d", got, tt.real)
			}
			for set, want := range tt.members {
				if got := r.sets.members(set); got != want {
					t.Errorf("%s has %d members, want %d", set, got, want)
				}
			}
			if r.ipt.rules != tt.iptRules {
				t.Errorf("iptables rules = %d, want %d", r.ipt.rules, tt.iptRules)
			}
			n := 0
			for range Addresses(m) {
				n++
			}
			if n != tt.boundAddress || r.sets.members("KUBE-IPVS-IPS") != n {
				t.Errorf("Addresses yields %d, KUBE-IPVS-IPS has %d, want %d", n, r.sets.members("KUBE-IPVS-IPS"), tt.boundAddress)
			}
		})
	}
}

func generated(t testing.TB, services, endpoints int) *model.Model {
	t.Helper()
	g, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: endpoints, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Cluster: model.DefaultCluster(), Services: g}
}

// TestIPTablesConstantInServiceCount: the iptables payload is the same
// bytes for 1 and 1000 services.
func TestIPTablesConstantInServiceCount(t *testing.T) {
	var one, many bytes.Buffer
	s1, err := RenderIPTables(&one, generated(t, 1, 2), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s1000, err := RenderIPTables(&many, generated(t, 1000, 2), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s1.Rules != s1000.Rules || s1.Rules != 20 {
		t.Errorf("rules: %d for 1 service, %d for 1000, want 20 for both", s1.Rules, s1000.Rules)
	}
	if !bytes.Equal(one.Bytes(), many.Bytes()) {
		t.Error("iptables payload differs between 1 and 1000 services")
	}
}

// TestGeneratedReplays replays a generated cluster through all fakes and
// checks the table sizes.
func TestGeneratedReplays(t *testing.T) {
	r := renderAndReplay(t, generated(t, 300, 3), DefaultOptions())
	if len(r.ipvs.services) != 300 || r.ipvs.realServerCount() != 900 {
		t.Errorf("ipvs: %d services, %d real servers; want 300, 900", len(r.ipvs.services), r.ipvs.realServerCount())
	}
	for set, want := range map[string]int{"KUBE-CLUSTER-IP": 300, "KUBE-IPVS-IPS": 300, "KUBE-LOOP-BACK": 900} {
		if got := r.sets.members(set); got != want {
			t.Errorf("%s: %d members, want %d", set, got, want)
		}
	}
}

// TestMaxElemRaised: past 65536 members a set's maxelem grows to the next
// power of two, and the ipset fake (which enforces maxelem) accepts it.
func TestMaxElemRaised(t *testing.T) {
	m := generated(t, 70000, 0)
	var buf bytes.Buffer
	if _, err := RenderIPSet(&buf, m, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	st, err := replayIPSet(buf.String())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"KUBE-CLUSTER-IP": 131072, "KUBE-IPVS-IPS": 131072, "KUBE-LOOP-BACK": 65536} {
		if got := st.sets[name].maxElem; got != want {
			t.Errorf("%s maxelem = %d, want %d", name, got, want)
		}
	}
	if st.members("KUBE-CLUSTER-IP") != 70000 {
		t.Errorf("KUBE-CLUSTER-IP has %d members, want 70000", st.members("KUBE-CLUSTER-IP"))
	}
}

func TestRejects(t *testing.T) {
	v6 := svc3()
	v6.ClusterIP = ip("fd00::43")
	tests := []struct {
		name string
		m    *model.Model
		opts Options
	}{
		{"unknown scheduler", testModel(svc3()), Options{Scheduler: "fastest"}},
		{"IPv6 service in an IPv4 model", testModel(v6), DefaultOptions()},
		{"IPv4 service in an IPv6 model", &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{svc3()}, Family: model.IPv6}, DefaultOptions()},
		{"invalid node IP", testModel(svcNodePort()), Options{NodeIPs: []netip.Addr{{}}}},
		{"IPv4-mapped node IP", testModel(svcNodePort()), Options{NodeIPs: []netip.Addr{ip("::ffff:192.168.0.2")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Render(io.Discard, tt.m, tt.opts); err == nil {
				t.Error("Render accepted it")
			}
			if _, err := RenderIPVSAdm(io.Discard, tt.m, tt.opts); err == nil {
				t.Error("RenderIPVSAdm accepted it")
			}
		})
	}
}
