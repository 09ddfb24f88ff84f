package iptables

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// kubeProxyCluster is NewFakeProxier's: pod CIDR 10.0.0.0/8, node
// "test-node" at 192.168.0.2.
func kubeProxyCluster() model.Cluster {
	return model.Cluster{ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), ServiceCIDR: netip.MustParsePrefix("172.30.0.0/16"), MasqueradeBit: 14, NodeName: "test-node", NodeIP: netip.MustParseAddr("192.168.0.2")}
}

// overallServices are TestOverallIPTablesRules' six services as the
// objects decoder models them (kubeproxy/conformance/testdata/overall
// holds them as Kubernetes objects).
func overallServices() model.Slice {
	ep := func(ip, node string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true, Node: node}
	}
	port := func(nodePort int) []model.Port {
		return []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}
	}
	ip := netip.MustParseAddr
	ips := func(a string) []netip.Addr { return []netip.Addr{ip(a)} }
	return model.Slice{
		{Namespace: "ns1", Name: "svc1", Type: model.ClusterIP, ClusterIP: ip("172.30.0.41"), Ports: port(0), Endpoints: []model.Endpoint{ep("10.180.0.1", "")}},
		{Namespace: "ns2", Name: "svc2", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.42"), Ports: port(3001),
			ExternalPolicyLocal: true, HealthCheckNodePort: 30000, LoadBalancerIPs: ips("1.2.3.4"), ExternalIPs: ips("192.168.99.22"),
			Endpoints: []model.Endpoint{ep("10.180.0.2", "")}},
		{Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: ip("172.30.0.43"), Ports: port(3003), Endpoints: []model.Endpoint{ep("10.180.0.3", "")}},
		{Namespace: "ns4", Name: "svc4", Type: model.NodePort, ClusterIP: ip("172.30.0.44"), Ports: port(0), ExternalIPs: ips("192.168.99.33"),
			Endpoints: []model.Endpoint{ep("10.180.0.4", ""), ep("10.180.0.5", "test-node")}},
		{Namespace: "ns5", Name: "svc5", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.45"), Ports: port(3002),
			HealthCheckNodePort: 30000, LoadBalancerIPs: ips("5.6.7.8"), LoadBalancerSourceRanges: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/25")},
			Affinity: model.Affinity{ClientIP: true, Timeout: 10800}, Endpoints: []model.Endpoint{ep("10.180.0.3", "")}},
		{Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: ip("172.30.0.46"), Ports: port(0)},
	}
}

// badIPServices is TestBadIPs' service, its addresses with leading zeros
// read as kube-proxy's sloppy parsing reads them.
func badIPServices() model.Slice {
	ip := netip.MustParseAddr
	return model.Slice{{
		Namespace: "ns1", Name: "svc1", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.41"),
		Ports:           []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: 3001}},
		LoadBalancerIPs: []netip.Addr{ip("1.2.3.4")}, ExternalIPs: []netip.Addr{ip("192.168.99.22")},
		LoadBalancerSourceRanges: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/25")},
		Endpoints:                []model.Endpoint{{IP: ip("10.180.0.1"), Ready: true, Serving: true}},
	}}
}

// canonicalFile reads a ported kube-proxy expectation in svclab's
// canonical order.
func canonicalFile(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "kube-proxy", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := simipt.Canonical(string(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// TestKubeProxyOverallRules is the differential test against kube-proxy's
// own TestOverallIPTablesRules and TestBadIPs (of each supported release's
// patch, render.KubeProxyReleases; their expected payloads copied verbatim): the payload, in canonical order,
// must equal kube-proxy's expectation. The fixture's iptables has nfacct
// and no --random-fully (which v1.37 writes anyway); its mark is written
// 0x4000, svclab writes kube-proxy's real %#08x form.
func TestKubeProxyOverallRules(t *testing.T) {
	for _, tc := range []struct {
		test     string
		services model.Slice
	}{{"TestOverallIPTablesRules", overallServices()}, {"TestBadIPs", badIPServices()}} {
		for _, r := range render.KubeProxyReleases() {
			v, file := r.Version, r.Patch+"-"+tc.test+".rules"
			t.Run(tc.test+"/"+string(v), func(t *testing.T) {
				opts := Options{Version: v, NFAcct: true, LargeClusterThreshold: 1000}
				got := renderString(t, &model.Model{Cluster: kubeProxyCluster(), Services: tc.services}, opts)
				got, err := simipt.Canonical(strings.ReplaceAll(got, "0x00004000", "0x4000"))
				if err != nil {
					t.Fatal(err)
				}
				if want := canonicalFile(t, file); got != want {
					t.Errorf("payload differs from kube-proxy's %s:\n%s", file, golden.Diff(want, got))
				}
			})
		}
	}
}
