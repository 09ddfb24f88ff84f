package nftables

import (
	"io"
	"strconv"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// BenchmarkRender renders synthetic clusters to io.Discard. Targets:
// 10k×10 ≤ 0.5 s and 100k×10 ≤ 5 s per op; allocations stay per service
// (the output is streamed, never held).
func BenchmarkRender(b *testing.B) {
	for _, size := range []struct{ services, endpoints int }{{10_000, 2}, {10_000, 10}, {100_000, 10}} {
		for _, v := range render.KubeProxyVersions {
			benchRender(b, size.services, size.endpoints, v)
		}
	}
}

func benchRender(b *testing.B, services, endpoints int, v render.KubeProxyVersion) {
	{
		b.Run(strconv.Itoa(services)+"x"+strconv.Itoa(endpoints)+"/v"+string(v), func(b *testing.B) {
			g, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: endpoints, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			m := &model.Model{Cluster: model.DefaultCluster(), Services: g}
			b.ReportAllocs()
			var bytes int
			for b.Loop() {
				st, err := Render(io.Discard, m, Options{Version: v})
				if err != nil {
					b.Fatal(err)
				}
				bytes = st.Bytes
			}
			b.SetBytes(int64(bytes))
			b.ReportMetric(float64(bytes)/1e6, "MB/op")
		})
	}
}

// BenchmarkRenderIncremental renders the one-endpoint partial sync (a
// local endpoint: in the v1.36+ layout its hairpin element is checked
// against every other service).
func BenchmarkRenderIncremental(b *testing.B) {
	g, err := model.NewGenerator(model.GeneratorConfig{Services: 10_000, EndpointsPerService: 10, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: g}
	ep := model.Endpoint{IP: g.At(0).Endpoints[0].IP.Next(), Ready: true, Node: m.Cluster.NodeName}
	for _, v := range render.KubeProxyVersions {
		b.Run("v"+string(v), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RenderIncremental(io.Discard, m, 5000, ep, Options{Version: v}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
