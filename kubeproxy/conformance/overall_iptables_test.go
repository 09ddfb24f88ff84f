package conformance

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/svclab/svclab/kubeproxy/driver"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// iptOverallCases are kube-proxy's own iptables expectations reproduced
// here: the objects of each test under testdata/overall, and the model
// svclab reads from them.
var iptOverallCases = []struct {
	name, objects string
	model         func() model.Slice
}{
	{"TestOverallIPTablesRules", "TestOverallIPTablesRules.yaml", iptOverallServices},
	{"TestBadIPs", "iptables-TestBadIPs.yaml", iptBadIPServices},
}

// TestIPTablesKubeProxyExpectations reproduces TestOverallIPTablesRules
// and TestBadIPs of the driver's kube-proxy version (v1.35.4 or v1.37.2):
//   - the native renderer, with the test's host (nfacct counters present)
//     and its mark spelled as the test does (0x4000), writes exactly the
//     test's expected payload after kube-proxy's canonical sort;
//   - kube-proxy itself (the driver, fed the testdata objects as they are,
//     leading zeros and all) writes the same payload, up to what the
//     driver's host differs in: no nfacct counters, the real %#08x mark;
//   - the native renderer with the driver's host matches the driver.
func TestIPTablesKubeProxyExpectations(t *testing.T) {
	for _, tc := range iptOverallCases {
		t.Run(tc.name, func(t *testing.T) {
			expected := iptExpected(t, tc.objects)
			m := &model.Model{Cluster: iptOverallCluster(), Services: tc.model()}

			opts := iptablesOptions()
			opts.NFAcct, opts.RandomFully = true, false // the test's fake iptables: v1.35 writes no --random-fully
			native := strings.ReplaceAll(iptRender(t, m, opts), "0x00004000", "0x4000")
			iptSameCanonical(t, "native (test host)", expected, native)

			kp := iptDriverFromObjects(t, filepath.Join("testdata", "overall", tc.objects))
			iptSameCanonical(t, "kube-proxy (driver host)", iptOnDriverHost(expected), kp)

			d, err := diffRestore(kp, iptRender(t, m, iptablesOptions()))
			if err != nil {
				t.Fatal(err)
			}
			if d != "" {
				t.Errorf("native (driver host) differs from kube-proxy:\n%s", d)
			}
		})
	}
}

// iptExpected reads the test's expected payload for the driver's version.
func iptExpected(t *testing.T, objects string) string {
	t.Helper()
	name := strings.TrimSuffix(objects, ".yaml") + "." + driver.Version() + ".rules"
	raw, err := os.ReadFile(filepath.Join("testdata", "overall", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// iptOnDriverHost turns an expectation of NewFakeProxier (nfacct counters
// present, mark written "0x4000", an iptables without --random-fully) into
// what kube-proxy writes on the driver's render-mode host: no nfacct
// matches or localhost nfacct rules, the mark as %#08x formats it, and
// MASQUERADE --random-fully (which v1.37 writes on either host).
func iptOnDriverHost(expected string) string {
	var out []string
	for _, l := range strings.Split(expected, "\n") {
		if strings.Contains(l, "localhost_nps_accepted_pkts") {
			continue
		}
		l = strings.ReplaceAll(l, " -m nfacct --nfacct-name ct_state_invalid_dropped_pkts", "")
		if strings.HasSuffix(l, "-j MASQUERADE") {
			l += " --random-fully"
		}
		out = append(out, strings.ReplaceAll(l, "0x4000", "0x00004000"))
	}
	return strings.Join(out, "\n")
}

func iptRender(t *testing.T, m *model.Model, opts rendipt.Options) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := rendipt.Render(&b, m, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// iptSameCanonical compares two payloads after kube-proxy's canonical
// sort (its sortIPTablesRules, simipt.Canonical).
func iptSameCanonical(t *testing.T, what, want, got string) {
	t.Helper()
	w, err := simipt.Canonical(want)
	if err != nil {
		t.Fatalf("expected payload: %v", err)
	}
	g, err := simipt.Canonical(got)
	if err != nil {
		t.Fatalf("%s payload: %v", what, err)
	}
	if w != g {
		t.Errorf("%s differs from kube-proxy's expectation:\n%s", what, lineDiff(w, g))
	}
}

// iptDriverFromObjects runs kube-proxy on the Services and EndpointSlices
// of a YAML List, as NewFakeProxier's node sees them, and returns its
// first payload.
func iptDriverFromObjects(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var list v1.List
	if err := yaml.Unmarshal(js, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := iptOverallCluster()
	req := &kube.Request{
		Mode: kube.ModeIPTables, Family: "IPv4", NodeName: c.NodeName, NodeIP: c.NodeIP.String(),
		ClusterCIDR: c.ClusterCIDR.String(), MasqueradeBit: c.MasqueradeBit, LocalhostNodePorts: true,
		Objects: v1.List{TypeMeta: list.TypeMeta},
	}
	for i, item := range list.Items {
		kind, err := kube.Kind(item)
		if err != nil {
			t.Fatalf("%s: item %d: %v", path, i, err)
		}
		if kind == "Service" || kind == "EndpointSlice" {
			req.Objects.Items = append(req.Objects.Items, item)
		}
	}
	syncs, err := renderRequest(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return syncs[0].Payload
}

// iptOverallCluster is NewFakeProxier's node: test-node, 192.168.0.2, pod
// CIDR 10.0.0.0/8, mark bit 14, every kube-proxy flag at its default.
func iptOverallCluster() model.Cluster {
	return model.Cluster{
		ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), ServiceCIDR: netip.MustParsePrefix("172.30.0.0/16"),
		MasqueradeBit: 14, NodeName: "test-node", NodeIP: netip.MustParseAddr("192.168.0.2"),
	}
}

// iptOverallServices is TestOverallIPTablesRules.yaml as a model (what
// the objects decoder makes of it: API defaults, targetPort = port,
// endpoints without conditions ready and serving).
func iptOverallServices() model.Slice {
	ip, ips := netip.MustParseAddr, iptAddrs
	ep := func(a, node string) model.Endpoint {
		return model.Endpoint{IP: ip(a), Ready: true, Serving: true, Node: node}
	}
	p80 := func(nodePort int) []model.Port {
		return []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}
	}
	return model.Slice{
		{Namespace: "ns1", Name: "svc1", Type: model.ClusterIP, ClusterIP: ip("172.30.0.41"), Ports: p80(0),
			Endpoints: []model.Endpoint{ep("10.180.0.1", "")}},
		{Namespace: "ns2", Name: "svc2", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.42"), Ports: p80(3001),
			ExternalPolicyLocal: true, HealthCheckNodePort: 30000,
			LoadBalancerIPs: ips("1.2.3.4"), ExternalIPs: ips("192.168.99.22"),
			Endpoints: []model.Endpoint{ep("10.180.0.2", "")}},
		{Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: ip("172.30.0.43"), Ports: p80(3003),
			Endpoints: []model.Endpoint{ep("10.180.0.3", "")}},
		{Namespace: "ns4", Name: "svc4", Type: model.NodePort, ClusterIP: ip("172.30.0.44"), Ports: p80(0),
			ExternalIPs: ips("192.168.99.33"),
			Endpoints:   []model.Endpoint{ep("10.180.0.4", ""), ep("10.180.0.5", "test-node")}},
		{Namespace: "ns5", Name: "svc5", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.45"), Ports: p80(3002),
			HealthCheckNodePort: 30000, LoadBalancerIPs: ips("5.6.7.8"),
			LoadBalancerSourceRanges: iptPrefixes("203.0.113.0/25"),
			Affinity:                 model.Affinity{ClientIP: true, Timeout: 10800},
			Endpoints:                []model.Endpoint{ep("10.180.0.3", "")}},
		{Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: ip("172.30.0.46"), Ports: p80(0)},
	}
}

// iptBadIPServices is iptables-TestBadIPs.yaml as a model: the addresses
// as kube-proxy's sloppy parsing reads them.
func iptBadIPServices() model.Slice {
	return model.Slice{{
		Namespace: "ns1", Name: "svc1", Type: model.LoadBalancer, ClusterIP: netip.MustParseAddr("172.30.0.41"),
		Ports:           []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: 3001}},
		LoadBalancerIPs: iptAddrs("1.2.3.4"), ExternalIPs: iptAddrs("192.168.99.22"),
		LoadBalancerSourceRanges: iptPrefixes("203.0.113.0/25"),
		Endpoints:                []model.Endpoint{{IP: netip.MustParseAddr("10.180.0.1"), Ready: true, Serving: true}},
	}}
}
