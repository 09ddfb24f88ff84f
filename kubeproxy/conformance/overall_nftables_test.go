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
	"github.com/svclab/svclab/sim/render"
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
// expectation (TestOverallNFTablesRules, and where the release has it its
// IPv6 twin, copied verbatim to testdata/overall): the final state the native
// renderer's transaction leaves, and the one kube-proxy's proxier leaves
// when the driver feeds it the test's services as Kubernetes objects,
// both sorted as kube-proxy's test sorts it, equal the expected dump.
func TestOverallNFTablesRules(t *testing.T) {
	gate := overallLocalhostGate(t)
	for _, tt := range overallNFTablesTests(t) {
		t.Run(tt.want, func(t *testing.T) {
			want := simnft.SortTransaction(readTestdata(t, tt.want))
			m := overallModel(t, tt.objects, tt.ipv6)
			var tx bytes.Buffer
			opts := nftablesOptions(overallFlags())
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

// overallFlags are the test's NewFakeProxier flags: --nodeport-addresses
// the node's two addresses.
func overallFlags() render.Flags {
	p := netip.MustParsePrefix
	return render.Flags{NodePortAddresses: []netip.Prefix{p("192.168.0.2/32"), p("2001:db8::1/128")}}
}

// overallModel is the test's NewFakeProxier node and its six services,
// read from the objects file, as a model of the family.
func overallModel(t *testing.T, file string, ipv6 bool) *model.Model {
	a, p := netip.MustParseAddr, netip.MustParsePrefix
	c := model.Cluster{ClusterCIDR: p("10.0.0.0/8"), ServiceCIDR: p("172.30.0.0/16"), MasqueradeBit: 14, NodeName: "test-node",
		NodeIP: a("192.168.0.2"), NodeIPv6: a("2001:db8::1"),
		ClusterCIDRv6: p("fd00:10::/64"), ServiceCIDRv6: p("fd00:10:96::/112")}
	f := model.IPv4
	if ipv6 {
		f = model.IPv6
	}
	m := decodeOverall(t, filepath.Join("testdata", "overall", file), c)
	out := model.ForFamily(model.Model{Cluster: m.Cluster, Services: m.Services, Family: f}, f)
	return &out
}

// overallRequest is the driver request of the test: the node settings of
// m (sim/kube's, as for any model) with the Services and EndpointSlices of
// file instead of m's own.
func overallRequest(t *testing.T, file string, m *model.Model) (*kube.Request, error) {
	req, err := kube.NewRequest(kube.ModeNFTables, render.Config{Flags: overallFlags()}, &model.Model{Cluster: m.Cluster, Services: model.Slice{}, Family: m.Family})
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
