package topo

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
)

// BenchmarkBuild measures Build (not Close) for a client, N pods and a sink.
func BenchmarkBuild(b *testing.B) {
	labtest.RequireRoot(b)
	for _, pods := range []int{2, 20} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			spec := Spec{SinkPrefixes: []netip.Prefix{netip.MustParsePrefix("10.128.0.0/9")}}
			for i := range pods {
				spec.Pods = append(spec.Pods, Pod{IP: netip.AddrFrom4([4]byte{10, 244, 0, byte(10 + i)})})
			}
			for b.Loop() {
				spec.Prefix = NewPrefix()
				topo, err := Build(context.Background(), spec)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := topo.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
