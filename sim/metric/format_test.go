package metric

import (
	"math"
	"testing"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

func TestFormatNumberAndSlope(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{21.34, "21.3"}, {0.0123, "0.01"}, {-0.001, "0.00"}, {-0.2, "-0.20"}, {1234.5, "1234"}, {100, "100"}, {0, "0.00"},
	}
	for _, tc := range tests {
		if got := FormatNumber(tc.v); got != tc.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		fit  results.Fit
		want string
	}{
		{results.Fit{SlopeNsPerService: 21.3, SlopeCI95: [2]float64{19.8, 22.9}}, "21.3 ns/service [19.8, 22.9]"},
		{results.Fit{SlopeNsPerService: 56395, SlopeCI95: [2]float64{43089, 69700}}, "56.4 µs/service [43.1, 69.7]"},
		{results.Fit{SlopeNsPerService: 854903, SlopeCI95: [2]float64{-2426814, 4136620}}, "855 µs/service [-2427, 4137]"},
		{results.Fit{SlopeNsPerService: 2.5e6, SlopeCI95: [2]float64{2e6, 3e6}}, "2.50 ms/service [2.00, 3.00]"},
	} {
		if got := FormatSlope(tc.fit); got != tc.want {
			t.Errorf("FormatSlope(%v) = %q, want %q", tc.fit.SlopeNsPerService, got, tc.want)
		}
	}
}

func TestFitValueAndMedian(t *testing.T) {
	us, _ := Lookup(P50)
	s, _ := Lookup(SyncFull)
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"µs metric", FitValue(us, results.Fit{InterceptUs: 50, SlopeNsPerService: 20}, 1000), 70},
		{"seconds metric", FitValue(s, results.Fit{InterceptUs: 10000, SlopeNsPerService: 20000}, 1000), 0.03},
		{"odd median", stats.Median([]float64{3, 1, 2}), 2},
		{"even median", stats.Median([]float64{4, 1, 3, 2}), 2.5},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if !math.IsNaN(stats.Median(nil)) {
		t.Error("stats.Median(nil) is not NaN")
	}
}

func TestFormatSeconds(t *testing.T) {
	tests := []struct {
		s    float64
		want string
	}{
		{8.907e-05, "89.1 µs"}, {0.0123, "12.3 ms"}, {1.2391, "1.24 s"}, {126.6, "127 s"}, {0, "0 s"}, {4e-7, "0.40 µs"},
	}
	for _, tc := range tests {
		if got := FormatSeconds(tc.s); got != tc.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := FormatMicros(1500); got != "1.50 ms" {
		t.Errorf("FormatMicros(1500) = %q, want 1.50 ms", got)
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 20000: "20,000", 1500: "1,500", 100000: "100,000", -2500: "-2,500", 0.25: "0.250", 12.5: "12.5", 999: "999"} {
		if got := Thousands(v); got != want {
			t.Errorf("Thousands(%v) = %q, want %q", v, got, want)
		}
	}
}
