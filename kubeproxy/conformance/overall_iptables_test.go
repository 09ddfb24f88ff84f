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
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// iptOverallCases are kube-proxy's own iptables expectations reproduced
// here: the objects of each test under testdata/overall.
var iptOverallCases = []struct{ name, objects string }{
	{"TestOverallIPTablesRules", "TestOverallIPTablesRules.yaml"},
	{"TestBadIPs", "iptables-TestBadIPs.yaml"},
}

// TestIPTablesKubeProxyExpectations reproduces TestOverallIPTablesRules
// and TestBadIPs of the driver's kube-proxy version (its row's patch release):
//   - the native renderer, given the model sim/objects decodes from the
//     testdata objects, with the test's host (nfacct counters present) and
//     its mark spelled as the test does (0x4000), writes exactly the
//     test's expected payload after kube-proxy's canonical sort;
//   - kube-proxy itself (the driver, fed the testdata objects as they are,
//     leading zeros and all) writes the same payload, up to what the
//     driver's host differs in: no nfacct counters, the real %#08x mark;
//   - the native renderer with the driver's host matches the driver.
func TestIPTablesKubeProxyExpectations(t *testing.T) {
	for _, tc := range iptOverallCases {
		t.Run(tc.name, func(t *testing.T) {
			expected := iptExpected(t, tc.objects)
			path := filepath.Join("testdata", "overall", tc.objects)
			m := iptDecode(t, path)

			opts := iptablesOptions(render.Flags{})
			opts.NFAcct, opts.RandomFully = true, false // the test's fake iptables: without AlwaysRandomFully, no --random-fully
			native := strings.ReplaceAll(iptRender(t, m, opts), "0x00004000", "0x4000")
			iptSameCanonical(t, "native (test host)", expected, native)

			kp := iptDriverFromObjects(t, path)
			iptSameCanonical(t, "kube-proxy (driver host)", iptOnDriverHost(expected), kp)

			d, err := diffRestore(kp, iptRender(t, m, iptablesOptions(render.Flags{})))
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
// MASQUERADE --random-fully (which AlwaysRandomFully releases write on either host).
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

// iptDecode reads a testdata file of objects with sim/objects, as
// `svclab render --scenario FILE` does, on NewFakeProxier's node (the
// file's Node object names it and gives its address).
func iptDecode(t *testing.T, path string) *model.Model {
	t.Helper()
	return decodeOverall(t, path, iptOverallCluster())
}

// decodeOverall reads a kube-proxy test's objects with sim/objects on the
// test's cluster c, whose node the file's Node object must be.
func decodeOverall(t *testing.T, path string, c model.Cluster) *model.Model {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.Decode(path, raw)
	if err != nil {
		t.Fatal(err)
	}
	n := o.LocalNode("")
	if n.Name != c.NodeName || n.IPv4 != c.NodeIP {
		t.Fatalf("%s: local node %+v, want the test's %s at %s", path, n, c.NodeName, c.NodeIP)
	}
	n.Apply(&c)
	return &model.Model{Cluster: c, Services: o.Services}
}
