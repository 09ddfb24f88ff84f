package cost

import (
	"bytes"
	"strings"
	"testing"
)

// TestHoldoutAcrossRuns gathers figures over runs: a figure one run lacks
// has a null error there, and the counts are per figure.
func TestHoldoutAcrossRuns(t *testing.T) {
	row := func(dp, figure string, err, target float64, covered bool) HoldoutRow {
		return HoldoutRow{Dataplane: dp, Services: 50000, Figure: figure, Error: err, Target: target, Covered: covered}
	}
	runs := [][]HoldoutRow{
		{row("nftables", "p50 µs (last)", 0.05, 0.10, true), row("nftables", "full sync s", -0.2, 0.10, false)},
		{row("nftables", "p50 µs (last)", -0.12, 0.10, true), row("nftables", "kernel memory MB", 0.3, 0, true)},
		{row("nftables", "full sync s", 0.01, 0.10, true), row("nftables", "p50 µs (last)", 0.02, 0.10, false)},
	}
	got := HoldoutAcrossRuns(runs)
	tests := []struct {
		figure                string
		errors                []float64 // 99: absent
		runs, within, covered int
	}{
		{"p50 µs (last)", []float64{0.05, -0.12, 0.02}, 3, 2, 2},
		{"full sync s", []float64{-0.2, 99, 0.01}, 2, 1, 1},
		{"kernel memory MB", []float64{99, 0.3, 99}, 1, 1, 1},
	}
	if len(got) != len(tests) {
		t.Fatalf("%d figures, want %d: %+v", len(got), len(tests), got)
	}
	for i, tt := range tests {
		a := got[i]
		if a.Figure != tt.figure || a.Runs != tt.runs || a.Within != tt.within || a.Covered != tt.covered {
			t.Errorf("figure %d: %+v, want %s in %d runs, %d within, %d covered", i, a, tt.figure, tt.runs, tt.within, tt.covered)
		}
		for j, want := range tt.errors {
			switch e := a.Errors[j]; {
			case want == 99 && e != nil:
				t.Errorf("%s run %d: error %v, want none", tt.figure, j, *e)
			case want != 99 && (e == nil || *e != want):
				t.Errorf("%s run %d: error %v, want %v", tt.figure, j, e, want)
			}
		}
	}
	if s := HoldoutAcrossSummary(runs); !strings.Contains(s, "over 3 runs: 3 of 5 targeted figures within target; 4 of 6 intervals cover") ||
		!strings.HasSuffix(s, "0 of 3 runs with every figure within target and covered") {
		t.Errorf("summary %q", s)
	}
	var md bytes.Buffer
	if err := WriteHoldoutAcrossMarkdown(&md, got, []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| dataplane | N | figure | a | b | c | target | within | covered |",
		"| nftables | 50000 | p50 µs (last) | +5.0% | **-12.0%** | +2.0% | ±10% | 2 of 3 | 2 of 3 |",
		"| nftables | 50000 | kernel memory MB | – | +30.0% | – | — | — | 1 of 1 |"} {
		if !strings.Contains(md.String(), want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, md.String())
		}
	}
}
