package route

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// BenchmarkOracle: building an oracle renders and compiles once per
// model and mode; a route is one trace.
func BenchmarkOracle(b *testing.B) {
	g, err := model.NewGenerator(model.GeneratorConfig{Services: 10000, EndpointsPerService: 3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	c := model.DefaultCluster()
	c.NodeIP = node
	m := &model.Model{Cluster: c, Services: g}
	for _, mode := range Modes() {
		b.Run(fmt.Sprintf("%s/new", mode), func(b *testing.B) {
			for b.Loop() {
				if _, err := New(m, Config{Mode: mode}); err != nil {
					b.Fatal(err)
				}
			}
		})
		o, err := New(m, Config{Mode: mode})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/route", mode), func(b *testing.B) {
			i := 0
			for b.Loop() {
				s := g.At(i % g.Len())
				i++
				a, err := o.Route(Query{Dst: netip.AddrPortFrom(s.ClusterIP, uint16(s.Ports[0].Port)), Src: pod})
				if err != nil || len(a.Endpoints) != 3 {
					b.Fatalf("%s: %v, %v", s.ClusterIP, a, err)
				}
			}
		})
	}
}
