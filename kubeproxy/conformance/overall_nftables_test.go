package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	simnft "github.com/svclab/svclab/sim/nftables"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	rendnft "github.com/svclab/svclab/sim/render/nftables"
)

// overallNFTablesTest is one of kube-proxy's TestOverallNFTablesRules*:
// its objects (testdata/overall), family and expected dump.
type overallNFTablesTest struct {
	objects string
	ipv6    bool
	want    string
}

// TestOverallNFTablesRules reproduces kube-proxy's own full-sync
// expectation (TestOverallNFTablesRules, and in v1.37 its IPv6 twin,
// copied verbatim to testdata/overall): the final state the native
// renderer's transaction leaves, and the one kube-proxy's proxier leaves
// when the driver feeds it the test's services as Kubernetes objects,
// both sorted as kube-proxy's test sorts it, equal the expected dump.
func TestOverallNFTablesRules(t *testing.T) {
	gate := overallLocalhostGate(t)
	for _, tt := range overallNFTablesTests {
		t.Run(tt.want, func(t *testing.T) {
			want := simnft.SortTransaction(readTestdata(t, tt.want))
			m := overallModel(tt.ipv6)
			var tx bytes.Buffer
			opts := nftablesOptions()
			opts.LocalhostNodePortsGate = gate
			if _, err := rendnft.Render(&tx, m, opts); err != nil {
				t.Fatal(err)
			}
			if d := diffText(want, fakeDump(t, tx.String())); d != "" {
				t.Errorf("native renderer's final state differs from kube-proxy's expectation:\n%s", d)
			}
			req, err := overallRequest(t, tt.objects, m)
			if err != nil {
				t.Fatal(err)
			}
			syncs, err := renderRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffText(want, fakeDump(t, syncs[0].Payload)); d != "" {
				t.Errorf("kube-proxy's proxier on %s differs from its test's expectation:\n%s", tt.objects, d)
			}
		})
	}
}

// overallModel is the test's NewFakeProxier node and six services as a
// model of the family.
func overallModel(ipv6 bool) *model.Model {
	a, p := netip.MustParseAddr, netip.MustParsePrefix
	c := model.Cluster{ClusterCIDR: p("10.0.0.0/8"), ServiceCIDR: p("172.30.0.0/16"), MasqueradeBit: 14, NodeName: "test-node",
		NodeIP: a("192.168.0.2"), NodeIPv6: a("2001:db8::1"),
		ClusterCIDRv6: p("fd00:10::/64"), ServiceCIDRv6: p("fd00:10:96::/112")}
	c.Proxy.NodePortAddresses = []netip.Prefix{p("192.168.0.2/32"), p("2001:db8::1/128")}
	cip, ep, lb, ext, sr := "172.30.0.", "10.180.0.", []string{"1.2.3.4", "5.6.7.8"}, []string{"192.168.99.22", "192.168.99.33"}, "203.0.113.0/25"
	f := model.IPv4
	if ipv6 {
		cip, ep, lb, ext, sr = "fd00:172:30::", "fd00:10:180::", []string{"5555::1", "5555::2"}, []string{"2001:db8:99::22", "2001:db8:99::33"}, "2001:db8:203::/64"
		f = model.IPv6
	}
	port := func(nodePort int) []model.Port {
		return []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: nodePort}}
	}
	e := func(n, node string) model.Endpoint {
		return model.Endpoint{IP: a(ep + n), Ready: true, Serving: true, Node: node}
	}
	svc := func(n string, t model.ServiceType, nodePort int, eps ...model.Endpoint) model.Service {
		return model.Service{Namespace: "ns" + n, Name: "svc" + n, Type: t, ClusterIP: a(cip + "4" + n), Ports: port(nodePort), Endpoints: eps}
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
	services := model.Slice{
		svc("1", model.ClusterIP, 0, e("1", "test-node")), svc2,
		svc("3", model.NodePort, 3003, e("3", "test-node")), svc4, svc5,
		svc("6", model.ClusterIP, 0),
	}
	out := model.ForFamily(model.Model{Cluster: c, Services: services, Family: f}, f)
	return &out
}

// overallRequest is the driver request of the test: the node settings of
// m (sim/kube's, as for any model) with the Services and EndpointSlices of
// file instead of m's own.
func overallRequest(t *testing.T, file string, m *model.Model) (*kube.Request, error) {
	req, err := kube.NewRequest(kube.ModeNFTables, &model.Model{Cluster: m.Cluster, Services: model.Slice{}, Family: m.Family})
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(readTestdata(t, file)), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if obj == nil {
			continue
		}
		if kind := obj["kind"]; kind != "Service" && kind != "EndpointSlice" {
			continue // the Node: the request's node settings are m's
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		req.Objects.Items = append(req.Objects.Items, runtime.RawExtension{Raw: b})
	}
	return req, nil
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "overall", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeDump applies a transaction to an empty table and writes the final
// state as knftables.Fake.Dump does, sorted by kube-proxy's test helper,
// with its test mark 0x4000 for svclab's 0x00004000.
func fakeDump(t *testing.T, tx string) string {
	t.Helper()
	var st simnft.TransactionState
	if err := st.Apply(tx); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	return simnft.SortTransaction(strings.ReplaceAll(st.Dump(), "0x00004000", "0x4000"))
}
