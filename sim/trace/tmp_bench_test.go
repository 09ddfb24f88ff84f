package trace

import (
	"net/netip"
	"testing"
)

func BenchmarkTmpSmall(b *testing.B) {
	tr := mustTracer(b, parseDump(b, generateServices(100, 3)), Options{SkipPaths: true})
	var out Trace
	p := Packet{Src: netip.MustParseAddr("192.168.7.7"), Dst: serviceIP(50), Proto: "tcp", DPort: 80}
	for i := 0; i < b.N; i++ {
		_ = tr.TraceInto(p, &out)
	}
}
