package pktgen

import (
	"context"
	"testing"
)

// BenchmarkBlast sends b.N SYNs as fast as the client's socket takes them
// at one service split over two pods, and reports the packets per second
// sent, the new flows per second the pods saw, and the machine-wide system
// plus softirq CPU per flow.
func BenchmarkBlast(b *testing.B) {
	f := newLabFixture(b, 2)
	b.Run("services=1", func(b *testing.B) {
		forwarded := f.forwarded()
		before, err := forwarded()
		if err != nil {
			b.Fatal(err)
		}
		cpu0, err := readCPU()
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		res, err := Blast(context.Background(), f.blastSpec(b.N))
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		after := waitForSettled(b, f)
		cpu1, err := readCPU()
		if err != nil {
			b.Fatal(err)
		}
		step := newStep(0, res, after[0]+after[1]-before, cpu1.since(cpu0, 0))
		b.ReportMetric(res.PPS, "pkt/s")
		b.ReportMetric(step.FlowsPerSec, "flows/s")
		b.ReportMetric(step.CPUMicrosPerPacket, "cpu-µs/flow")
		b.ReportMetric(float64(res.Dropped), "dropped")
	})
}

// BenchmarkMeasure runs the knee search at one service split over two
// pods and reports the knee and the CPU per flow there.
func BenchmarkMeasure(b *testing.B) {
	f := newLabFixture(b, 2)
	b.Run("services=1", func(b *testing.B) {
		spec := MeasureSpec{Blast: f.blastSpec(0), Forwarded: f.forwarded(), ConntrackNetns: f.topo.NodeNetns}
		var rate Rate
		for range b.N {
			var err error
			if rate, err = Measure(context.Background(), spec); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rate.FlowsPerSec, "knee-flows/s")
		b.ReportMetric(rate.CPUMicrosPerPacket, "cpu-µs/flow")
		b.ReportMetric(float64(len(rate.Steps)), "steps")
	})
}
