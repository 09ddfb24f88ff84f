package nftables

import (
	"bytes"
	"net/netip"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/model"
)

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestRenderGolden(t *testing.T) {
	for name, svc := range shapes() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			st, err := Render(&buf, modelOf(svc), Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name+".nft", buf.Bytes())
			if st.Bytes != buf.Len() || st.Lines != bytes.Count(buf.Bytes(), []byte("\n")) {
				t.Errorf("stats %+v do not match output (%d bytes, %d lines)", st, buf.Len(), bytes.Count(buf.Bytes(), []byte("\n")))
			}
		})
	}
}

func TestRenderNodePortAddressesGolden(t *testing.T) {
	var buf bytes.Buffer
	opts := Options{NodePortAddresses: []netip.Addr{netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("127.0.0.1")}, SkipBaseChainReset: true, FlushContainers: true}
	if _, err := Render(&buf, modelOf(shapes()["nodeport"]), opts); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "nodeport-addresses.nft", buf.Bytes())
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			m := modelOf(shapes()["no-endpoints"], tt.svc)
			st, err := RenderIncremental(&buf, m, 1, endpoints(tt.ep)[0], Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".nft", buf.Bytes())
			if st.Lines != bytes.Count(buf.Bytes(), []byte("\n")) {
				t.Errorf("stats %+v: lines do not match output", st)
			}
		})
	}
}
