package iptables

import (
	"fmt"
	"io"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// BenchmarkRender renders N services × 10 endpoints to io.Discard. The
// project targets are ≤ 0.5 s for 10k and ≤ 5 s for 100k on 2 cores.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("services=%d/endpoints=10", n), func(b *testing.B) {
			gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: 10, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
			b.ReportAllocs()
			var bytes int
			for b.Loop() {
				stats, err := Render(io.Discard, m, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				bytes = stats.Bytes
			}
			b.SetBytes(int64(bytes))
		})
	}
}
