package nftables

import (
	"bytes"
	"net/netip"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// checkGolden compares got with testdata/v<layout>/name, or rewrites it
// under -update.
func checkGolden(t *testing.T, v render.KubeProxyVersion, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "v"+string(layout(v)), name), got)
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestRenderGolden(t *testing.T) {
	for _, v := range render.KubeProxyVersions {
		for name, svc := range shapes() {
			t.Run(string(v)+"/"+name, func(t *testing.T) { renderGolden(t, v, name, svc) })
		}
	}
}

func renderGolden(t *testing.T, v render.KubeProxyVersion, name string, svc model.Service) {
	var buf bytes.Buffer
	st, err := Render(&buf, modelOf(svc), Options{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, v, name+".nft", buf.Bytes())
	if st.Bytes != buf.Len() || st.Lines != bytes.Count(buf.Bytes(), []byte("\n")) {
		t.Errorf("stats %+v do not match output (%d bytes, %d lines)", st, buf.Len(), bytes.Count(buf.Bytes(), []byte("\n")))
	}
}

func TestRenderNodePortAddressesGolden(t *testing.T) {
	for _, v := range render.KubeProxyVersions {
		var buf bytes.Buffer
		opts := Options{Version: v, SkipBaseChainReset: true, FlushContainers: true}
		m := modelOf(shapes()["nodeport"])
		m.Cluster.NodeIP = netip.MustParseAddr("192.168.0.2")
		opts.Flags.NodePortAddresses = []netip.Prefix{netip.MustParsePrefix("192.168.0.2/32"), netip.MustParsePrefix("127.0.0.1/32")}
		if _, err := Render(&buf, m, opts); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, v, "nodeport-addresses.nft", buf.Bytes())
	}
}

func TestRenderIncrementalGolden(t *testing.T) {
	tests := []struct {
		name string
		svc  model.Service
		ep   string
	}{
		{"incremental-third-endpoint", twoEndpoints(), "10.0.3.4"},
		{"incremental-first-endpoint", shapes()["nodeport-no-endpoints"], "10.180.0.7"},
		{"incremental-affinity", shapes()["affinity"], "10.180.0.9"},
	}
	for _, v := range render.KubeProxyVersions {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				var buf bytes.Buffer
				m := modelOf(shapes()["no-endpoints"], tt.svc)
				st, err := RenderIncremental(&buf, m, 1, endpoints(tt.ep)[0], Options{Version: v})
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, v, tt.name+".nft", buf.Bytes())
				if st.Lines != bytes.Count(buf.Bytes(), []byte("\n")) {
					t.Errorf("stats %+v: lines do not match output", st)
				}
			})
		}
	}
}
