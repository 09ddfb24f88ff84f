package ipvs

import (
	"fmt"
	"io"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// Benchmarks render whole synthetic clusters to io.Discard. Targets:
// 10,000 × 10 in ≤ 0.5 s and 100,000 × 10 in ≤ 5 s for Render (all three
// payloads).
func BenchmarkRender(b *testing.B) {
	for _, size := range []struct{ services, endpoints int }{{10_000, 2}, {10_000, 10}, {100_000, 10}} {
		m := generated(b, size.services, size.endpoints)
		for _, v := range render.KubeProxyVersions {
			opts := DefaultOptions()
			opts.Version = v
			b.Run(fmt.Sprintf("%dx%d/v%s", size.services, size.endpoints, v), func(b *testing.B) {
				var st Stats
				for b.Loop() {
					var err error
					if st, err = Render(io.Discard, m, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(st.Total.Lines), "lines")
				b.ReportMetric(float64(st.Total.Bytes)/1e6, "MB")
			})
		}
	}
}

// BenchmarkPayloads times each payload alone at 100,000 × 10.
func BenchmarkPayloads(b *testing.B) {
	m := generated(b, 100_000, 10)
	for _, p := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"ipvsadm", func(w io.Writer) error { _, err := RenderIPVSAdm(w, m, DefaultOptions()); return err }},
		{"ipset", func(w io.Writer) error { _, err := RenderIPSet(w, m, DefaultOptions()); return err }},
		{"iptables", func(w io.Writer) error { _, err := RenderIPTables(w, m, DefaultOptions()); return err }},
	} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if err := p.fn(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
