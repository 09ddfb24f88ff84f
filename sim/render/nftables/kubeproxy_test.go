package nftables

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// kubeProxyTestMark is the mark kube-proxy's NewFakeProxier uses ("0x4000");
// a real kube-proxy, and svclab, format it with %#08x.
const kubeProxyTestMark = "0x4000"

// kubeProxyEndpoint is an endpoint of kube-proxy's test fixtures: no
// conditions (ready), on the given node.
func kubeProxyEndpoint(ip, node string) model.Endpoint {
	return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true, Node: node}
}

// overallServices are TestOverallNFTablesRules' services as svclab models
// them (see the header of the ported expectation for what is left out).
func overallServices() model.Slice {
	port := func(nodePort int) []model.Port {
		return []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}
	}
	ip := netip.MustParseAddr
	return model.Slice{
		{Namespace: "ns1", Name: "svc1", Type: model.ClusterIP, ClusterIP: ip("172.30.0.41"), Ports: port(0),
			Endpoints: []model.Endpoint{kubeProxyEndpoint("10.180.0.1", "test-node")}},
		{Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: ip("172.30.0.43"), Ports: port(3003),
			Endpoints: []model.Endpoint{kubeProxyEndpoint("10.180.0.3", "test-node")}},
		{Namespace: "ns4", Name: "svc4", Type: model.ClusterIP, ClusterIP: ip("172.30.0.44"), Ports: port(0),
			Endpoints: []model.Endpoint{kubeProxyEndpoint("10.180.0.4", "other-node"), kubeProxyEndpoint("10.180.0.5", "test-node")}},
		{Namespace: "ns5", Name: "svc5", Type: model.NodePort, ClusterIP: ip("172.30.0.45"), Ports: port(3002),
			Affinity:  model.Affinity{ClientIP: true, Timeout: 10800},
			Endpoints: []model.Endpoint{kubeProxyEndpoint("10.180.0.3", "test-node")}},
		{Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: ip("172.30.0.46"), Ports: port(0)},
	}
}

// kubeProxyOptions are NewFakeProxier's settings that are not the
// cluster's (kubeProxyCluster).
func kubeProxyOptions(v render.KubeProxyVersion) Options { return Options{Version: v} }

// kubeProxyCluster is NewFakeProxier's node: the reference cluster with
// node IPs 192.168.0.2 and 2001:db8::1, --nodeport-addresses those two
// addresses.
func kubeProxyCluster() model.Cluster {
	c := referenceCluster()
	c.NodeIP, c.NodeIPv6 = netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("2001:db8::1")
	c.Proxy.NodePortAddresses = []netip.Prefix{netip.MustParsePrefix("192.168.0.2/32"), netip.MustParsePrefix("2001:db8::1/128")}
	return c
}

// finalDump applies transactions in order to an empty table and returns
// the state in kube-proxy's sorted dump form, with its test mark.
func finalDump(t *testing.T, txs ...string) string {
	t.Helper()
	st := newNFTState()
	for i, tx := range txs {
		if err := st.apply(tx); err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	return sortNFTablesTransaction(strings.ReplaceAll(st.dump(), "0x00004000", kubeProxyTestMark))
}

// wantDump reads a ported kube-proxy expectation and sorts it as
// kube-proxy's assertNFTablesTransactionEqual does.
func wantDump(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kube-proxy", name))
	if err != nil {
		t.Fatal(err)
	}
	return sortNFTablesTransaction(string(b))
}

// TestKubeProxyOverallRules is the differential test against kube-proxy's
// own expectation (TestOverallNFTablesRules of v1.35.4 and v1.37.2): the
// final state of svclab's transaction, sorted as kube-proxy's test sorts
// it, must equal kube-proxy's expected dump line for line.
func TestKubeProxyOverallRules(t *testing.T) {
	for v, file := range map[render.KubeProxyVersion]string{
		render.KubeProxy135: "v1.35.4-TestOverallNFTablesRules.nft",
		render.KubeProxy137: "v1.37.2-TestOverallNFTablesRules.nft",
	} {
		t.Run(string(v), func(t *testing.T) {
			var tx bytes.Buffer
			m := &model.Model{Cluster: kubeProxyCluster(), Services: overallServices()}
			if _, err := Render(&tx, m, kubeProxyOptions(v)); err != nil {
				t.Fatal(err)
			}
			if d := golden.Diff(wantDump(t, file), finalDump(t, tx.String())); d != "" {
				t.Errorf("final state differs from kube-proxy's %s:\n%s", file, d)
			}
		})
	}
}
