package iptables

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// largeServices are TestSyncProxyRulesLargeClusterMode's services
// (kube-proxy v1.37.2 pkg/proxy/iptables/proxier_test.go): two with
// threshold/2-1 = 499 endpoints each and svc3 with the given endpoints.
func largeServices(svc3 []model.Endpoint) model.Slice {
	many := func(prefix string) []model.Endpoint {
		out := make([]model.Endpoint, 499)
		for i := range out {
			out[i] = model.Endpoint{IP: netip.MustParseAddr(fmt.Sprintf("%s.%d.%d", prefix, i%256, i/256)), Ready: true, Serving: true}
		}
		return out
	}
	s := func(n, ip string, port int, eps []model.Endpoint) model.Service {
		return model.Service{Namespace: "ns" + n, Name: "svc" + n, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr(ip),
			Ports: []model.Port{{Name: fmt.Sprintf("p%d", port), Protocol: model.TCP, Port: port, TargetPort: port}}, Endpoints: eps}
	}
	return model.Slice{s("1", "172.30.0.41", 80, many("10.0")), s("2", "172.30.0.42", 8080, many("10.1")), s("3", "172.30.0.43", 8081, svc3)}
}

// firstSEPDNAT returns the DNAT rule of the endpoint with address ip.
func firstSEPDNAT(payload, ip string) string {
	for _, l := range strings.Split(payload, "\n") {
		if strings.HasPrefix(l, "-A KUBE-SEP-") && strings.HasSuffix(l, "--to-destination "+ip) {
			return l
		}
	}
	return ""
}

// TestLargeClusterMode follows kube-proxy's TestSyncProxyRulesLargeClusterMode
// and its count: every endpoint, ready or not, times ports
// (len(endpointsMap[svcPort])) against the threshold of 1000.
func TestLargeClusterMode(t *testing.T) {
	ep := func(ip string, ready bool) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: ready, Serving: ready}
	}
	three := []model.Endpoint{ep("203.0.113.4", true), ep("203.0.113.8", true), ep("203.0.113.12", true)}
	tests := []struct {
		name  string
		svc3  []model.Endpoint
		ip    string // endpoint whose DNAT rule is checked
		want  string
		large bool
	}{
		{"998 endpoints", nil, "10.0.0.0:80",
			"-A KUBE-SEP-DKGQUZGBKLTPAR56 -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80", false},
		{"1001 endpoints", three, "203.0.113.4:8081",
			"-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081", true},
		// 1000 ready endpoints and one that is not: kube-proxy counts 1001.
		{"1000 ready, 1 not ready", []model.Endpoint{three[0], three[1], ep("203.0.113.12", false)}, "203.0.113.4:8081",
			"-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081", true},
		{"1000 endpoints", three[:2], "203.0.113.4:8081",
			"-A KUBE-SEP-RUVVH7YV3PHQBDOS -m comment --comment ns3/svc3:p8081 -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &model.Model{Cluster: kubeProxyCluster(), Services: largeServices(tt.svc3)}
			payload := renderString(t, m, DefaultOptions())
			if got := firstSEPDNAT(payload, tt.ip); got != tt.want {
				t.Errorf("DNAT rule of %s:\n got %s\nwant %s", tt.ip, got, tt.want)
			}
			if got := strings.Contains(payload, "-m comment --comment ns1/svc1:p80 -s"); got == tt.large {
				t.Errorf("SEP comments present = %v, want large-cluster mode %v", got, tt.large)
			}
		})
	}
}

// TestServingTerminatingFallback: with no ready endpoint, kube-proxy routes
// to the endpoints that are serving and terminating; a ready endpoint wins
// over them (CategorizeEndpoints).
func TestServingTerminatingFallback(t *testing.T) {
	e := func(ip string, ready, serving, terminating bool) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: ready, Serving: serving, Terminating: terminating}
	}
	tests := []struct {
		name string
		eps  []model.Endpoint
		want []string // DNAT destinations
	}{
		{"ready wins", []model.Endpoint{e("10.0.0.1", true, true, false), e("10.0.0.2", false, true, true)}, []string{"10.0.0.1:80"}},
		{"serving terminating", []model.Endpoint{e("10.0.0.2", false, true, true), e("10.0.0.3", false, false, true), e("10.0.0.4", false, false, false)}, []string{"10.0.0.2:80"}},
		{"none usable", []model.Endpoint{e("10.0.0.3", false, false, true)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := svc("ns", "a", "10.96.0.10")
			s.Endpoints = tt.eps
			payload := renderString(t, testModel(s), DefaultOptions())
			var got []string
			for _, l := range strings.Split(payload, "\n") {
				if i := strings.Index(l, "--to-destination "); i >= 0 {
					got = append(got, l[i+len("--to-destination "):])
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("DNAT to %v, want %v", got, tt.want)
			}
			if rejects := strings.Contains(payload, `"ns/a:p80 has no endpoints"`); rejects != (len(tt.want) == 0) {
				t.Errorf("REJECT rule present = %v with %d usable endpoints", rejects, len(tt.want))
			}
		})
	}
}

// TestMasqueradeRule: kube-proxy's internal-chain masquerade rule with
// --masquerade-all (no source match), with a local detector (`! -s CIDR`),
// and without either (no rule).
func TestMasqueradeRule(t *testing.T) {
	base := svc("ns", "a", "10.96.0.10", "10.180.0.1")
	tests := []struct {
		name string
		all  bool
		cidr string
		want string
	}{
		{"masquerade all", true, "10.0.0.0/8", `-A KUBE-SVC-GN5AR356S3HOLUWO -m comment --comment "ns/a:p80 cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-MARK-MASQ`},
		{"local detector", false, "10.0.0.0/8", `-A KUBE-SVC-GN5AR356S3HOLUWO -m comment --comment "ns/a:p80 cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ`},
		{"no detector", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel(base)
			c := m.Cluster
			c.ClusterCIDR = netip.Prefix{}
			if tt.cidr != "" {
				c.ClusterCIDR = netip.MustParsePrefix(tt.cidr)
			}
			m.Cluster = c
			opts := DefaultOptions()
			opts.Flags.MasqueradeAll = tt.all
			var got string
			for _, l := range strings.Split(renderString(t, m, opts), "\n") {
				if strings.HasPrefix(l, "-A KUBE-SVC-") && strings.HasSuffix(l, "-j KUBE-MARK-MASQ") {
					got = l
				}
			}
			if got != tt.want {
				t.Errorf("masquerade rule\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestSyncerLargeClusterStaleChains follows the end of kube-proxy's
// TestSyncProxyRulesLargeClusterMode (v1.37.2): in large-cluster mode a
// deleted service's chains are not deleted until a syncPeriod has passed
// since the last cleanup; then the next sync deletes them.
func TestSyncerLargeClusterStaleChains(t *testing.T) {
	ep := func(ip string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true}
	}
	base := largeServices([]model.Endpoint{ep("203.0.113.4"), ep("203.0.113.8"), ep("203.0.113.12")})
	svc4 := model.Service{Namespace: "ns4", Name: "svc4", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.30.0.44"),
		Ports: []model.Port{{Name: "p8082", Protocol: model.TCP, Port: 8082, TargetPort: 8082}}, Endpoints: []model.Endpoint{ep("10.4.0.1")}}
	s := NewSyncer(DefaultOptions())
	sync := func(services model.Slice) string {
		var b strings.Builder
		if _, err := s.Sync(&b, &model.Model{Cluster: kubeProxyCluster(), Services: services}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	sync(append(append(model.Slice(nil), base...), svc4))
	if got := sync(base); strings.Contains(got, "-X ") {
		t.Fatalf("large-cluster mode deleted chains before a syncPeriod passed:\n%s", got)
	}
	s.SyncPeriodElapsed()
	got := sync(base)
	for _, l := range []string{"-X KUBE-SVC-EBDQOQU5SJFXRIL3\n", "-X KUBE-SEP-SU5STNODRYEWJAUF\n"} {
		if !strings.Contains(got, l) {
			t.Errorf("the sync after a syncPeriod lacks %q", l)
		}
	}
	if got := sync(base); strings.Contains(got, "-X ") {
		t.Errorf("stale chains deleted twice:\n%s", got)
	}
}
