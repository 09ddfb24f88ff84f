package cost

import (
	"strings"
	"testing"
)

func TestCostCurveWarnings(t *testing.T) {
	tests := []struct {
		name   string
		lookup Lookup
		x, y   []float64
		want   string // "" = no warning
	}{
		{"good line", LinearWalk, []float64{1, 1000, 2000, 4000}, []float64{10, 30.1, 49.9, 90}, ""},
		{"two points", LinearWalk, []float64{1000, 2000}, []float64{30, 50}, "2 points, no interval"},
		{"poor line", LinearWalk, []float64{1, 1000, 2000, 4000}, []float64{10, 80, 20, 90}, "poor linear fit"},
		{"bends upward", LinearWalk, []float64{1, 2500, 5000, 10000}, []float64{13.7, 29.3, 53.3, 235}, "negative base"},
		{"constant", MapLookup, []float64{1, 2500, 5000}, []float64{13.7, 13.4, 13.5}, ""},
		{"constant that grows", MapLookup, []float64{1, 2500, 5000, 10000}, []float64{13, 20, 26, 40}, "grows with N"},
		{"constant of 2 sizes", MapLookup, []float64{1, 5000}, []float64{13, 13.5}, "not bounded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := fitCostCurve(MetricP50, tt.lookup, tt.x, tt.y)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(c.warnings("dp", DefaultMinR2), "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("warnings %q, want one containing %q", got, tt.want)
			}
		})
	}
}

func TestCostCurveTwoPointsHasNoInterval(t *testing.T) {
	c, err := fitCostCurve(MetricP50, LinearWalk, []float64{1000, 2000}, []float64{30, 50})
	if err != nil {
		t.Fatal(err)
	}
	added, total := c.Added(3000, 3000), c.Total(3000, 3000)
	if !added.NoInterval || !total.NoInterval || !near(added.Value, 60, 1e-12) || !near(total.Value, 70, 1e-12) {
		t.Errorf("added %+v, total %+v; want 60 and 70 without interval", added, total)
	}
}

func TestCostCurveRejects(t *testing.T) {
	tests := []struct {
		name   string
		lookup Lookup
		x, y   []float64
	}{
		{"walk, one size", LinearWalk, []float64{1000, 1000}, []float64{1, 2}},
		{"walk, no points", LinearWalk, nil, nil},
		{"map, one size", MapLookup, []float64{5, 5, 5}, []float64{1, 2, 3}},
	}
	for _, tt := range tests {
		if _, err := fitCostCurve(MetricP50, tt.lookup, tt.x, tt.y); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestEvaluations(t *testing.T) {
	tests := []struct {
		lookup   Lookup
		position string
		n        int
		want     float64
	}{
		{LinearWalk, PositionFirst, 5000, 1},
		{LinearWalk, PositionLast, 5000, 5000},
		{LinearWalk, PositionUniform, 5000, 2500.5},
		{LinearWalk, PositionMiddle, 5001, 2501},
		{MapLookup, PositionLast, 5000, 1},
	}
	for _, tt := range tests {
		if got, err := Evaluations(tt.lookup, tt.position, tt.n); err != nil || got != tt.want {
			t.Errorf("Evaluations(%s, %s, %d) = %v, %v; want %v", tt.lookup, tt.position, tt.n, got, err, tt.want)
		}
	}
	if _, err := Evaluations(LinearWalk, "centre", 10); err == nil {
		t.Error("position centre accepted")
	}
	if _, err := LookupOf("ebpf"); err == nil {
		t.Error("dataplane ebpf accepted")
	}
}

// TestUniformLookupIntervalHoldsAMeasurement: a map lookup's uniform p50
// (a line in ln N) predicts a median of as many repetitions as each
// calibrated size had, so its interval holds that median's spread too;
// native-m's nftables points (µs, 3 repetitions at 1 to 5,000 services)
// then cover the 25.7 µs it measured at 50,000, which the mean's interval
// [16.6, 24.2] did not.
func TestUniformLookupIntervalHoldsAMeasurement(t *testing.T) {
	x := []float64{1, 1, 1, 1000, 1000, 1000, 2500, 2500, 2500, 5000, 5000, 5000}
	y := []float64{28.8, 15.9, 15.8, 31.7, 17.4, 18.6, 26.2, 20.3, 17.5, 18.7, 19.0, 18.1}
	c, err := fitCostCurve(MetricP50+" (uniform)", MapLookup, x, y)
	if err != nil {
		t.Fatal(err)
	}
	c.withLogGrowth(x, y)
	if c.LogLine == nil || c.Repetitions != 3 {
		t.Fatalf("log line %v, %d repetitions, want a line and 3", c.LogLine, c.Repetitions)
	}
	e := c.Total(0, 50000)
	if !e.Contains(25.7) {
		t.Errorf("uniform p50 at 50,000: %+v, want an interval holding 25.7", e)
	}
	one := c
	one.Repetitions = 1000 // as good as the mean's interval
	if wide := e.Hi - e.Lo; !(wide > one.Total(0, 50000).Hi-one.Total(0, 50000).Lo) {
		t.Errorf("the median's interval is not wider than with 1,000 repetitions")
	}
}
