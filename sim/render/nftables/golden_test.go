package nftables

import (
	"bytes"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, lineDiff(string(want), string(got)))
	}
}

// lineDiff reports the first differing line of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return "(identical lines, different bytes)"
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
