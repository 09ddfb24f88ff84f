package iptables

import (
	"fmt"
	"io"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// BenchmarkRender renders N services × E endpoints to io.Discard for each
// kube-proxy version. The project targets are ≤ 0.5 s for 10k × 10 and
// ≤ 5 s for 100k × 10 on 2 cores, and at least twice kube-proxy's own
// generation speed (its syncProxyRules takes 0.20–0.27 s at 10k × 2).
func BenchmarkRender(b *testing.B) {
	for _, size := range []struct{ services, endpoints int }{{10_000, 2}, {10_000, 10}, {100_000, 10}} {
		for _, v := range render.KubeProxyVersions {
			benchRender(b, size.services, size.endpoints, v)
		}
	}
}

func benchRender(b *testing.B, n, e int, v render.KubeProxyVersion) {
	{
		b.Run(fmt.Sprintf("services=%d/endpoints=%d/v%s", n, e, v), func(b *testing.B) {
			gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: e, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
			opts := DefaultOptions()
			opts.Version = v
			b.ReportAllocs()
			var bytes int
			for b.Loop() {
				stats, err := Render(io.Discard, m, opts)
				if err != nil {
					b.Fatal(err)
				}
				bytes = stats.Bytes
			}
			b.SetBytes(int64(bytes))
		})
	}
}
