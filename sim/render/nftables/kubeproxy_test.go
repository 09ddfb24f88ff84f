package nftables

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	simnft "github.com/svclab/svclab/sim/nftables"

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

// overallModel is TestOverallNFTablesRules' (or, for IPv6,
// TestOverallNFTablesRulesIPv6's) six services on NewFakeProxier's node,
// projected onto the family.
func overallModel(f model.Family) *model.Model {
	a, p := netip.MustParseAddr, netip.MustParsePrefix
	c := kubeProxyCluster()
	c.ClusterCIDRv6, c.ServiceCIDRv6 = p("fd00:10::/64"), p("fd00:10:96::/112")
	cip, ep, lb, ext, sr := "172.30.0.", "10.180.0.", []string{"1.2.3.4", "5.6.7.8"}, []string{"192.168.99.22", "192.168.99.33"}, "203.0.113.0/25"
	if f == model.IPv6 {
		cip, ep, lb, ext, sr = "fd00:172:30::", "fd00:10:180::", []string{"5555::1", "5555::2"}, []string{"2001:db8:99::22", "2001:db8:99::33"}, "2001:db8:203::/64"
	}
	e := func(n, node string) model.Endpoint { return kubeProxyEndpoint(ep+n, node) }
	svc := func(n string, t model.ServiceType, nodePort int, eps ...model.Endpoint) model.Service {
		return model.Service{Namespace: "ns" + n, Name: "svc" + n, Type: t, ClusterIP: a(cip + "4" + n),
			Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}, Endpoints: eps}
	}
	svc2 := svc("2", model.LoadBalancer, 3001, e("2", "other-node"))
	svc2.LoadBalancerIPs, svc2.ExternalIPs = []netip.Addr{a(lb[0])}, []netip.Addr{a(ext[0])}
	svc2.ExternalPolicyLocal, svc2.HealthCheckNodePort = true, 30000
	svc4 := svc("4", model.NodePort, 0, e("4", "other-node"), e("5", "test-node"))
	svc4.ExternalIPs = []netip.Addr{a(ext[1])}
	svc5 := svc("5", model.LoadBalancer, 3002, e("3", "test-node"))
	svc5.LoadBalancerIPs, svc5.HealthCheckNodePort = []netip.Addr{a(lb[1])}, 30000
	svc5.LoadBalancerSourceRanges = []netip.Prefix{p(sr)}
	svc5.Affinity = model.Affinity{ClientIP: true, Timeout: 10800}
	services := model.Slice{svc("1", model.ClusterIP, 0, e("1", "test-node")), svc2,
		svc("3", model.NodePort, 3003, e("3", "test-node")), svc4, svc5, svc("6", model.ClusterIP, 0)}
	out := model.ForFamily(model.Model{Cluster: c, Services: services, Family: f}, f)
	return &out
}

// kubeProxyOptions are NewFakeProxier's settings that are not the
// cluster's (kubeProxyCluster).
func kubeProxyOptions(v render.KubeProxyVersion) Options {
	return Options{Version: v, Flags: render.Flags{NodePortAddresses: []netip.Prefix{netip.MustParsePrefix("192.168.0.2/32"), netip.MustParsePrefix("2001:db8::1/128")}}}
}

// kubeProxyCluster is NewFakeProxier's node: the reference cluster with
// node IPs 192.168.0.2 and 2001:db8::1 (kubeProxyOptions' flags give
// --nodeport-addresses those two addresses).
func kubeProxyCluster() model.Cluster {
	c := referenceCluster()
	c.NodeIP, c.NodeIPv6 = netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("2001:db8::1")
	return c
}

// finalDump applies transactions in order to an empty table and returns
// the state in kube-proxy's sorted dump form, with its test mark.
func finalDump(t *testing.T, txs ...string) string {
	t.Helper()
	var st simnft.TransactionState
	for i, tx := range txs {
		if err := st.Apply(tx); err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	return simnft.SortTransaction(strings.ReplaceAll(st.Dump(), "0x00004000", kubeProxyTestMark))
}

// wantDump reads a ported kube-proxy expectation and sorts it as
// kube-proxy's assertNFTablesTransactionEqual does.
func wantDump(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kube-proxy", name))
	if err != nil {
		t.Fatal(err)
	}
	return simnft.SortTransaction(string(b))
}

// TestKubeProxyOverallRules is the differential test against kube-proxy's
// own expectations, copied verbatim: TestOverallNFTablesRules (and, where
// the release has it, TestOverallNFTablesRulesIPv6) of each supported
// release's patch (render.KubeProxyReleases; v1.37's run with the
// localhost NodePorts gate on). The final state of svclab's transaction,
// sorted as kube-proxy's test sorts it, must equal the expected dump line
// for line.
func TestKubeProxyOverallRules(t *testing.T) {
	for _, r := range render.KubeProxyReleases() {
		files, _ := filepath.Glob(filepath.Join("testdata", "kube-proxy", r.Patch+"-TestOverallNFTablesRules*.nft"))
		if len(files) == 0 {
			t.Errorf("kube-proxy %s: no testdata/kube-proxy/%s-TestOverallNFTablesRules.nft", r.Version, r.Patch)
		}
		for _, path := range files {
			file, f := filepath.Base(path), model.IPv4
			if strings.Contains(file, "IPv6") {
				f = model.IPv6
			}
			t.Run(file, func(t *testing.T) {
				var tx bytes.Buffer
				opts := kubeProxyOptions(r.Version)
				opts.LocalhostNodePortsGate = true
				if _, err := Render(&tx, overallModel(f), opts); err != nil {
					t.Fatal(err)
				}
				if d := golden.Diff(wantDump(t, file), finalDump(t, tx.String())); d != "" {
					t.Errorf("final state differs from kube-proxy's %s:\n%s", file, d)
				}
			})
		}
	}
}
