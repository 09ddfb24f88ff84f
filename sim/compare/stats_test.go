package compare

import (
	"math"
	"testing"
)

// TestMannWhitneyPValues checks Compare's p-values against values computed
// independently with /usr/bin/python3 (SciPy 1.10.1):
//
//	from scipy.stats import mannwhitneyu
//	mannwhitneyu(a, b, alternative='two-sided', method='exact').pvalue        # no ties, small
//	mannwhitneyu(a, b, alternative='two-sided', method='asymptotic',
//	             use_continuity=True).pvalue                                   # n > 50
//
// and, with ties (SciPy's exact method ignores them), by enumerating all
// C(9,4) = 126 ways to split the pooled values: p = 2·P(U ≤ U_observed).
func TestMannWhitneyPValues(t *testing.T) {
	var large1, large2 []float64
	for i := range 60 {
		large1 = append(large1, 100+float64((i*37)%61))
		large2 = append(large2, 104.5+float64((i*41)%67))
	}
	tests := []struct {
		name      string
		base, new []float64
		wantP     float64
		source    string
	}{
		{"no ties, 5+5", []float64{10, 11, 12, 13, 14}, []float64{13.5, 15, 16, 17, 18}, 0.015873015873015872, "scipy exact"},
		{"ties, 4+5", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 4, 5}, 0.15873015873015872, "enumeration, 20 of 126 splits have U ≤ 3"},
		{"60+60, normal approximation", large1, large2, 0.05708863687369076, "scipy asymptotic with continuity correction"},
		{"measured: nftables vs iptables-nft p50 at 20k", []float64{12.471, 12.751, 12.359, 13.023, 12.311},
			[]float64{384.255, 379.647, 290.815, 382.463, 312.319}, 0.007936507936507936, "scipy exact"},
		{"measured: iptables-nft p50 at 20k, run1 vs run2", []float64{384.255, 379.647, 290.815, 382.463, 312.319},
			[]float64{287.231, 288.767, 340.223, 295.679, 346.623}, 0.15079365079365079, "scipy exact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := syntheticRun("base", pointRecords("iptables-nft", 100, "last", tt.base...))
			new := syntheticRun("new", pointRecords("iptables-nft", 100, "last", tt.new...))
			res, err := Compare(base, new, Options{})
			if err != nil {
				t.Fatal(err)
			}
			row := findRow(t, res, "p50_us", "iptables-nft/100/last")
			if math.Abs(row.P-tt.wantP) > 1e-9 {
				t.Errorf("p = %.12g, want %.12g (%s)", row.P, tt.wantP, tt.source)
			}
			if row.Significant != (tt.wantP <= 0.05) {
				t.Errorf("significant = %v at p %.4f", row.Significant, tt.wantP)
			}
		})
	}
}

func TestMinPValue(t *testing.T) {
	tests := []struct {
		n1, n2 int
		want   float64
	}{
		{0, 5, 1},
		{1, 1, 1},
		{3, 3, 0.1},        // 2/C(6,3) = 2/20
		{4, 4, 2.0 / 70},   // the smallest sizes that reach 0.05
		{5, 5, 2.0 / 252},  // 0.0079: what the measured 5+5 comparisons show
		{3, 10, 2.0 / 286}, // C(13,3) = 286
		{20, 20, 2 / 137846528820.0},
	}
	for _, tt := range tests {
		if got := MinPValue(tt.n1, tt.n2); math.Abs(got-tt.want) > 1e-12*math.Max(1, tt.want) {
			t.Errorf("MinPValue(%d, %d) = %g, want %g", tt.n1, tt.n2, got, tt.want)
		}
	}
	for _, tt := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.01, 5}, {0.1, 3}, {0.001, 7}} {
		if got := MinRepetitions(tt.alpha); got != tt.want {
			t.Errorf("MinRepetitions(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
}

// TestMedianAndDelta checks the medians, the change and the direction on
// hand-computed inputs.
func TestMedianAndDelta(t *testing.T) {
	base := syntheticRun("base", pointRecords("nftables", 1, "first", 10, 11, 12, 13, 14))
	new := syntheticRun("new", pointRecords("nftables", 1, "first", 15, 16, 18, 19, 20))
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := findRow(t, res, "p50_us", "nftables/1/first")
	if row.BaseStats.Center != 12 || row.NewStats.Center != 18 {
		t.Errorf("medians %v, %v; want 12, 18", row.BaseStats.Center, row.NewStats.Center)
	}
	if math.Abs(row.DeltaPct-50) > 1e-9 || row.Change != Worse {
		t.Errorf("delta %v%% change %v; want +50%% worse", row.DeltaPct, row.Change)
	}
	if FormatDelta(row) != "+50.00%" || FormatSummary(row.BaseStats) != "12.0 ± ∞" {
		t.Errorf("formatted %q, %q", FormatDelta(row), FormatSummary(row.BaseStats))
	}
}

func findRow(t *testing.T, res *Result, metric, point string) Row {
	t.Helper()
	for _, r := range res.Rows {
		if r.Metric.Name == metric && r.Point() == point {
			return r
		}
	}
	t.Fatalf("no row %s %s", metric, point)
	return Row{}
}
