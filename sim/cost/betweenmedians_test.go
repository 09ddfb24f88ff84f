package cost

import (
	"math"
	"strings"
	"testing"
)

// TestInterpolateMedians: a value at a calibrated x is its median; between
// two it is read on the chord between them; outside them, or with fewer
// than two, there is none.
func TestInterpolateMedians(t *testing.T) {
	medians := mediansByX([]float64{40000, 10000, 20000, 20000}, []float64{271, 108, 140, 158})
	tests := []struct {
		name string
		x    float64
		want float64
		ok   bool
	}{
		{"a calibrated size", 10000, 108, true},
		{"two points at one size: their mean", 20000, 149, true},
		{"between two sizes: the chord", 30000, 210, true},
		{"the largest", 40000, 271, true},
		{"below the smallest", 9999, 0, false},
		{"past the largest", 40001, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := interpolateMedians(medians, tt.x)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("at %v: %v, %v; want %v, %v", tt.x, got, ok, tt.want, tt.ok)
			}
		})
	}
	if _, ok := interpolateMedians(medians[:1], 10000); ok {
		t.Error("one median: want no interpolation")
	}
}

// TestMediansWherePoor: a walk's medians are kept only where its line fits
// them poorly, and then a prediction within them moves onto them with the
// line's interval width; a straight walk keeps its line.
func TestMediansWherePoor(t *testing.T) {
	x := []float64{1, 10000, 20000, 40000, 70000, 100000}
	tests := []struct {
		name string
		y    []float64
		kept bool
	}{
		{"straight", []float64{30, 100, 170, 310, 520, 730}, false},
		{"bent past 40,000 (recording-2124's iptables-legacy)", []float64{30, 108, 149, 271, 546, 1686}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := fitCostCurve(MetricP50, LinearWalk, x, tt.y)
			if err != nil {
				t.Fatal(err)
			}
			c.withMediansWherePoor(x, tt.y, DefaultMinR2)
			if kept := len(c.Medians) > 0; kept != tt.kept {
				t.Fatalf("R² %.3f: medians kept %v, want %v", c.Line.R2, kept, tt.kept)
			}
			line := predictCost(c, 20000, 20000)
			got := c.betweenMedians(line, 20000)
			if !tt.kept {
				if got.BetweenMedians || got.Total != line.Total {
					t.Errorf("a straight walk moved off its line: %+v, line %+v", got.Total, line.Total)
				}
				return
			}
			above := line.Total.Hi - line.Total.Value // the line's Lo is clamped at 0 here
			if !got.BetweenMedians || got.Total.Value != 149 || math.Abs(got.Total.Hi-got.Total.Value-above) > 1e-9 {
				t.Errorf("at 20,000: %+v; want 149 with the line's %v above it (line %+v)", got.Total, above, line.Total)
			}
			if w := strings.Join(c.warnings("iptables-legacy", DefaultMinR2), "\n"); !strings.Contains(w, "read between the medians") {
				t.Errorf("warnings %q do not say the walk is read between the medians", w)
			}
			grown := 1686 + (c.Line.Slope * 50000) // the largest median plus the line's growth past it
			if past := c.betweenMedians(predictCost(c, 150000, 150000), 150000); !past.BetweenMedians || math.Abs(past.Total.Value-grown) > 1e-6 {
				t.Errorf("past the largest calibrated size: %+v; want %v, the largest median grown along the line", past.Total, grown)
			}
			if below := c.betweenMedians(predictCost(c, 0.5, 1), 0.5); below.BetweenMedians {
				t.Error("below the smallest calibrated size: want the line")
			}
		})
	}
}

// TestBentCalibrationReadsItsOwnMedians: on the recording whose
// iptables-legacy walk bent past 40,000 Services, a calibration over all
// its sizes predicts each of its last-position p50s as measured, where the
// line missed them by −31% to +62%.
func TestBentCalibrationReadsItsOwnMedians(t *testing.T) {
	run, err := LoadRun("../../results/plan-default-evening/recording-2124")
	if err != nil {
		t.Fatal(err)
	}
	m, err := CalibrateRun(run, Options{MaxN: 100000})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range run.Points {
		if p.Dataplane != "iptables-legacy" || p.Position != PositionLast || p.Services < 10000 {
			continue
		}
		preds, err := m.Predict(Query{Services: p.Services, EndpointsPerService: run.endpointsPerService(), Position: PositionLast})
		if err != nil {
			t.Fatal(err)
		}
		for _, pred := range preds {
			if pred.Dataplane != p.Dataplane {
				continue
			}
			checked++
			if !pred.P50us.BetweenMedians || math.Abs(pred.P50us.Total.Value/p.P50us-1) > 1e-9 {
				t.Errorf("%d services: p50 %v (between medians %v), measured %v", p.Services, pred.P50us.Total.Value, pred.P50us.BetweenMedians, p.P50us)
			}
		}
	}
	if checked != 5 {
		t.Errorf("%d last-position points from 10,000 checked, want 5", checked)
	}
}

// TestNoStepPastTheLargestMedian: where a bent calibration's medians end,
// a prediction one Service past the largest calibrated size is not below
// the one at it, with the line past it (recording-2124, no walk probe) and
// with the walk probe (final-2026-12-07's calibration on N ≤ 5,000).
func TestNoStepPastTheLargestMedian(t *testing.T) {
	tests := []struct {
		name, dir string
		maxN      int
	}{
		{"line past the medians", "../../results/plan-default-evening/recording-2124", 100000},
		{"walk probe past the medians", "../../results/plan-acceptance/final-2026-12-07/calibration", 5000},
		{"walk probe starting above the medians, not used", "../../results/plan-acceptance/final-2026-12-07/calibration", 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := LoadRun(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			m, err := CalibrateRun(run, Options{MaxN: tt.maxN})
			if err != nil {
				t.Fatal(err)
			}
			p50 := func(services int) CostPrediction {
				preds, err := m.Predict(Query{Services: services, EndpointsPerService: run.endpointsPerService(), Position: PositionLast})
				if err != nil {
					t.Fatal(err)
				}
				for _, pred := range preds {
					if pred.Dataplane == "iptables-legacy" {
						return pred.P50us
					}
				}
				t.Fatal("no iptables-legacy prediction")
				return CostPrediction{}
			}
			at, past := p50(tt.maxN), p50(tt.maxN+1)
			if past.Total.Value < at.Total.Value || past.Total.Value > at.Total.Value*1.01 {
				t.Errorf("p50 %v at %d Services, %v one past it: want no step", at.Total.Value, tt.maxN, past.Total.Value)
			}
			if !at.BetweenMedians || !past.BetweenMedians {
				t.Errorf("between medians at %d: %v, past it: %v; want a bent calibration read off its medians", tt.maxN, at.BetweenMedians, past.BetweenMedians)
			}
		})
	}
}
