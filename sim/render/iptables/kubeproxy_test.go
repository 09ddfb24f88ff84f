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
// "test-node".
func kubeProxyCluster() model.Cluster {
	return model.Cluster{ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), ServiceCIDR: netip.MustParsePrefix("172.30.0.0/16"), MasqueradeBit: 14, NodeName: "test-node"}
}

// overallServices are TestOverallIPTablesRules' services as svclab models
// them (see the header of the ported expectation).
func overallServices() model.Slice {
	ep := func(ip, node string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true, Node: node}
	}
	port := func(nodePort int) []model.Port {
		return []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}
	}
	ip := netip.MustParseAddr
	return model.Slice{
		{Namespace: "ns1", Name: "svc1", Type: model.ClusterIP, ClusterIP: ip("172.30.0.41"), Ports: port(0), Endpoints: []model.Endpoint{ep("10.180.0.1", "test-node")}},
		{Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: ip("172.30.0.43"), Ports: port(3003), Endpoints: []model.Endpoint{ep("10.180.0.3", "test-node")}},
		{Namespace: "ns4", Name: "svc4", Type: model.ClusterIP, ClusterIP: ip("172.30.0.44"), Ports: port(0),
			Endpoints: []model.Endpoint{ep("10.180.0.4", "other-node"), ep("10.180.0.5", "test-node")}},
		{Namespace: "ns5", Name: "svc5", Type: model.NodePort, ClusterIP: ip("172.30.0.45"), Ports: port(3002),
			Affinity: model.Affinity{ClientIP: true, Timeout: 10800}, Endpoints: []model.Endpoint{ep("10.180.0.3", "test-node")}},
		{Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: ip("172.30.0.46"), Ports: port(0)},
	}
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
// own TestOverallIPTablesRules (v1.35.4 and v1.37.2): the payload, in
// canonical order, must equal kube-proxy's expectation. The fixture's
// iptables has nfacct and no --random-fully (which v1.37 writes anyway);
// its mark is written 0x4000, svclab writes kube-proxy's real %#08x form.
func TestKubeProxyOverallRules(t *testing.T) {
	for v, file := range map[render.KubeProxyVersion]string{
		render.KubeProxy135: "v1.35.4-TestOverallIPTablesRules.rules",
		render.KubeProxy137: "v1.37.2-TestOverallIPTablesRules.rules",
	} {
		t.Run(string(v), func(t *testing.T) {
			opts := Options{Version: v, NFAcct: true, LargeClusterThreshold: 1000}
			got := renderString(t, &model.Model{Cluster: kubeProxyCluster(), Services: overallServices()}, opts)
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
