package stats

import (
	"testing"
	"time"
)

func BenchmarkFairness1000Endpoints(b *testing.B) {
	counts := make([]uint64, 1000)
	for i := range counts {
		counts[i] = uint64(1000 + i%7)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fairness(counts, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCascade100RulesMillionPackets(b *testing.B) {
	packets := make([]uint64, 100)
	probs := make([]float64, 100)
	for i := range packets {
		packets[i] = 10000
		probs[i] = 1 / float64(100-i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Cascade(packets, probs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLinearFit100Points(b *testing.B) {
	x, y := make([]float64, 100), make([]float64, 100)
	for i := range x {
		x[i] = float64(i * 100)
		y[i] = 50 + 0.02*x[i] + float64(i%5)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LinearFit(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare20x20(b *testing.B) {
	base, next := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i] = 100 + float64(i%7)
		next[i] = 103 + float64(i%5) + 0.5
	}
	b.ReportAllocs()
	for b.Loop() {
		Compare(base, next, DefaultAlpha)
	}
}

func BenchmarkLatencyRecord(b *testing.B) {
	h := NewLatencyHistogram()
	d := 20 * time.Microsecond
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Record(d); err != nil {
			b.Fatal(err)
		}
		d += 37
		if d > time.Second {
			d = 20 * time.Microsecond
		}
	}
}

func BenchmarkLatencyMarshalJSON(b *testing.B) {
	h := uniformMicros(b, 100000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
