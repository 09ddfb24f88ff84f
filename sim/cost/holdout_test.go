package cost

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestHoldoutMeasuredInterval: a measured median has the 95% interval of
// its loads (order statistics) when there are 6 or more, and a target the
// interval reaches past is marked undecided, in the table and the summary.
func TestHoldoutMeasuredInterval(t *testing.T) {
	p50s := []float64{416, 235, 294, 302, 310, 317, 379, 400, 412}
	tests := []struct {
		name        string
		loads       []float64
		wantLo      float64
		wantHi      float64
		wantDecided bool
	}{
		{"nine loads scattered past ±10%", p50s, 294, 412, false},
		{"nine loads within ±10%", []float64{300, 305, 310, 312, 317, 318, 320, 330, 340}, 305, 330, true},
		{"three loads: no interval", p50s[:3], 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reps []results.Point
			for i, v := range tt.loads {
				reps = append(reps, results.Point{Dataplane: "iptables-legacy", Services: 50000, Position: PositionUniform, Repetition: i + 1, P50us: v})
			}
			median := results.Point{Dataplane: "iptables-legacy", Services: 50000, Position: PositionUniform, P50us: 317}
			pred := Prediction{P50us: CostPrediction{Total: Estimate{Value: 320, Lo: 250, Hi: 400}}}
			rows := holdoutRows(median, pred, false, reps)
			if len(rows) != 1 {
				t.Fatalf("%d rows, want the p50's alone", len(rows))
			}
			r := rows[0]
			if r.Loads != len(tt.loads) || r.MeasuredLow != tt.wantLo || r.MeasuredHigh != tt.wantHi || r.Decided() != tt.wantDecided {
				t.Fatalf("row: %d loads, measured [%v, %v], decided %v; want %d, [%v, %v], %v",
					r.Loads, r.MeasuredLow, r.MeasuredHigh, r.Decided(), len(tt.loads), tt.wantLo, tt.wantHi, tt.wantDecided)
			}
			var table strings.Builder
			if err := WriteHoldoutMarkdown(&table, rows); err != nil {
				t.Fatal(err)
			}
			summary := HoldoutSummary(rows)
			if marked := strings.Contains(table.String(), "yes †"); marked == tt.wantDecided {
				t.Errorf("table marks the row undecided: %v, want %v:\n%s", marked, !tt.wantDecided, table.String())
			}
			if said := strings.Contains(summary, "† 1 measured less surely"); said == tt.wantDecided {
				t.Errorf("summary %q", summary)
			}
		})
	}
}

// TestHoldoutRowsOfCPU: CPU per connection, which the lab times with a
// batch to the last Service, is checked at the last position alone, without
// a target, where it was measured and the rule walk's position was the
// sweep's.
func TestHoldoutRowsOfCPU(t *testing.T) {
	pred := Prediction{P50us: CostPrediction{Total: Estimate{Value: 300, Lo: 250, Hi: 350}},
		CPUusPerConn: &CostPrediction{Total: Estimate{Value: 40, Lo: 30, Hi: 50}}, Extrapolation: 10}
	tests := []struct {
		name     string
		position string
		cpu      float64
		noWalk   bool
		want     bool
	}{
		{"last", PositionLast, 44, false, true},
		{"uniform: the batch went to the last", PositionUniform, 44, false, false},
		{"not measured", PositionLast, 0, false, false},
		{"kube-proxy's positions", PositionLast, 44, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := results.Point{Dataplane: "iptables-nft", Services: 50000, Position: tt.position, P50us: 310, CPUusPerConn: tt.cpu}
			var cpu []HoldoutRow
			for _, r := range holdoutRows(p, pred, tt.noWalk, []results.Point{p}) {
				if r.Figure == "CPU µs per connection" {
					cpu = append(cpu, r)
				}
			}
			if got := len(cpu) == 1; got != tt.want {
				t.Fatalf("CPU rows %+v; want one: %v", cpu, tt.want)
			}
			if tt.want && (cpu[0].Target != 0 || !cpu[0].Covered || cpu[0].Extrapolation != 10 || math.Abs(cpu[0].Error-(40.0/44-1)) > 1e-12) {
				t.Errorf("CPU row %+v; want no target, covered, ×10, error 40/44 − 1", cpu[0])
			}
		})
	}
}

// TestHoldoutWarnings: each row carries its prediction's warnings, as
// svclab plan prints them beside the same figures, but for the
// extrapolation past calibration a holdout is made of; HoldoutWarnings
// lists them once each.
func TestHoldoutWarnings(t *testing.T) {
	cal, err := DefaultRun()
	if err != nil {
		t.Fatal(err)
	}
	const services = 50000
	var points []results.Point
	for _, dp := range []string{"iptables-legacy", "nftables"} {
		points = append(points, results.Point{Dataplane: dp, Services: services, Position: PositionLast, P50us: 100, SyncFullS: 10})
	}
	run := &Run{Source: Source{Name: "one-port"}, Points: points}
	rows, m, err := HoldoutFrom(cal, run, Options{MaxN: 5000}, 0)
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(Query{Services: services, EndpointsPerService: run.endpointsPerService(), Position: PositionLast})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range preds {
		if !p.Beyond || !strings.Contains(strings.Join(p.Warnings, "\n"), "the largest calibrated N") {
			t.Fatalf("%s at %d: beyond %v, warnings %q; want the beyond-calibration warning the test leaves out", p.Dataplane, services, p.Beyond, p.Warnings)
		}
		if p.Dataplane == "iptables-nft" {
			continue // not in the run
		}
		others := slices.DeleteFunc(slices.Clone(p.Warnings), func(w string) bool { return strings.Contains(w, "the largest calibrated N") })
		if len(others) == 0 {
			t.Fatalf("%s: no warning but the beyond-calibration one; the test needs another", p.Dataplane)
		}
		for _, r := range rows {
			if r.Dataplane == p.Dataplane && !slices.Equal(r.Warnings, others) {
				t.Errorf("%s %s: warnings %q, want %q", r.Dataplane, r.Figure, r.Warnings, others)
			}
		}
		for _, w := range others {
			if !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
	}
	if got := HoldoutWarnings(rows); !slices.Equal(got, want) {
		t.Errorf("HoldoutWarnings %q, want each once %q", got, want)
	}
}
