package cost

import (
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
