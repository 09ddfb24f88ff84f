package nfttrace

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
	"github.com/svclab/svclab/sim/trace"
)

// BenchmarkTrace traces new connections to random services of a rendered
// 10,000-service × 10-endpoint ruleset and reports packets per second
// (each packet forks into 10 endpoint branches).
func BenchmarkTrace(b *testing.B) {
	b.Run("path", func(b *testing.B) { benchTrace(b, Options{}) })
	b.Run("nopath", func(b *testing.B) { benchTrace(b, Options{SkipPath: true}) })
}

func benchTrace(b *testing.B, opts Options) {
	g, err := model.NewGenerator(model.GeneratorConfig{Services: 10_000, EndpointsPerService: 10, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := rendernft.Render(&buf, &model.Model{Cluster: model.DefaultCluster(), Services: g}, rendernft.Options{}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	rs, err := nftables.Parse(&buf)
	if err != nil {
		b.Fatal(err)
	}
	parsed := time.Since(start)
	prog, err := Compile(rs, opts)
	rs = nil // let the collector drop the parsed form
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("parse %v, compile %v", parsed, time.Since(start)-parsed)
	pkts := make([]trace.Packet, 1024)
	for i := range pkts {
		s := g.At(i * 9 % g.Len())
		pkts[i] = trace.Packet{Src: netip.MustParseAddr("10.244.1.2"), Dst: s.ClusterIP, Proto: "tcp", DPort: 80, From: "pod"}
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		r, err := prog.Trace(pkts[i%len(pkts)])
		if err != nil || len(r.Endpoints) != 10 {
			b.Fatalf("trace: %v, %d endpoints", err, len(r.Endpoints))
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}
