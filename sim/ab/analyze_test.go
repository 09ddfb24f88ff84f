package ab

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// sideRecords simulates one side of an A/B run: reps repetitions of one
// nftables point at 1000 services whose latency and sync time are scaled
// by the machine's drift in that repetition (drift[i], shared by both
// sides), by effect, and by 2% noise of each measurement.
func sideRecords(rng *rand.Rand, drift []float64, latencyEffect, syncEffect float64) []results.Record {
	out := []results.Record{{Type: results.TypeMeta, Meta: &results.Meta{Scenario: "s"}}}
	for i, d := range drift {
		noise := func() float64 { return math.Exp(0.02 * rng.NormFloat64()) }
		h := stats.NewLatencyHistogram()
		for j := range 100 {
			_ = h.Record(time.Duration(float64(15000+10*j)*d*latencyEffect*noise()) * time.Nanosecond)
		}
		p := results.Point{Dataplane: "nftables", Services: 1000, Position: "last", Repetition: i + 1, Connections: 100,
			P50us: 16 * d * latencyEffect * noise(), P90us: 20 * d * noise(), P99us: 40 * d * noise(),
			SyncFullS: 0.8 * d * syncEffect * noise(), Histogram: h}
		small := p
		small.Services, small.Histogram, small.SyncFullS = 1, nil, 0.01*d*noise()
		out = append(out, results.Record{Type: results.TypePoint, Point: &p}, results.Record{Type: results.TypePoint, Point: &small})
	}
	return out
}

func drifts(rng *rand.Rand, n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Exp(0.3 * rng.NormFloat64())
	}
	return d
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name                  string
		reps                  int
		latency, sync         float64
		want                  compare.Outcome
		wantP10, wantSync     compare.Outcome
		wantNeededAtLeastPair bool
	}{
		{"A/A", 10, 1, 1, compare.Pass, compare.Pass, compare.Pass, false},
		{"latency +20%", 10, 1.2, 1, compare.Regression, compare.Regression, compare.Pass, false},
		{"sync +20%", 10, 1, 1.2, compare.Regression, compare.Pass, compare.Regression, false},
		{"a change just under the threshold is not a pass: its interval reaches it", 10, 1.048, 1, compare.Inconclusive, compare.Inconclusive, compare.Pass, true},
		{"five pairs have no interval", 5, 1, 1, compare.Inconclusive, compare.Inconclusive, compare.Inconclusive, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			d := drifts(rng, tt.reps)
			base, new := sideRecords(rng, d, 1, 1), sideRecords(rng, d, tt.latency, tt.sync)
			primary := []Primary{{Metric: metric.P10, Threshold: 5}, {Metric: metric.SyncFull, Threshold: 5}}
			res, err := Analyze(base, new, Options{Primary: primary})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tt.want {
				t.Errorf("outcome %s, want %s", res.Outcome, tt.want)
			}
			got := map[string]Row{}
			for _, r := range res.Rows {
				if r.Primary {
					got[r.Metric] = r
					if r.Services != 1000 {
						t.Errorf("%s gated at %d services, want the largest (1000)", r.Metric, r.Services)
					}
					// 2% noise on each side: the pairs spread at most about 2.8%
					// (p10 averages 100 samples' noise), so the fewest pairs do.
					bounded := tt.reps >= minPairs
					if bounded && (r.SpreadPct <= 0 || r.SpreadPct > 4 || r.PairsForTwice != 7) || !bounded && r.PairsForTwice != -1 {
						t.Errorf("%s: pairs spread %.1f%%, %d pairs for +10%%: want at most about 2.8%% and 7 (2/2⁷ ≤ 0.05/2); unknown (-1) without an interval", r.Metric, r.SpreadPct, r.PairsForTwice)
					}
				}
			}
			if len(got) != 2 {
				t.Fatalf("primary rows %v, want p10_us and sync_full_s", got)
			}
			if o := got[metric.P10].Outcome; o != tt.wantP10 {
				t.Errorf("p10_us %s, want %s (%s)", o, tt.wantP10, got[metric.P10].Line())
			}
			if o := got[metric.SyncFull].Outcome; o != tt.wantSync {
				t.Errorf("sync_full_s %s, want %s (%s)", o, tt.wantSync, got[metric.SyncFull].Line())
			}
			if tt.wantNeededAtLeastPair && res.Needed != -1 && res.Needed <= tt.reps {
				t.Errorf("needed %d repetitions, want more than %d (or -1)", res.Needed, tt.reps)
			}
		})
	}
}

func TestAnalyzeWithoutPrimary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := drifts(rng, 6)
	base, new := sideRecords(rng, d, 1, 1), sideRecords(rng, d, 1, 1)
	if _, err := Analyze(base, new, Options{Primary: []Primary{{Metric: metric.P50, Services: 77, Threshold: 5}}}); err != ErrNoPrimary {
		t.Errorf("err = %v, want ErrNoPrimary", err)
	}
	if _, err := Analyze(base, nil, Options{}); err != ErrNoPrimary {
		t.Errorf("a side without points: err = %v, want ErrNoPrimary", err)
	}
}

func TestOrder(t *testing.T) {
	a, b := Order(200, 1), Order(200, 1)
	baseFirst := 0
	for i := range a {
		if len(a[i]) != 2 || a[i][0] == a[i][1] || a[i][0] != b[i][0] {
			t.Fatalf("repetition %d: %v and %v: want both sides once, the same for the same seed", i, a[i], b[i])
		}
		if a[i][0] == Base {
			baseFirst++
		}
	}
	if baseFirst < 70 || baseFirst > 130 {
		t.Errorf("base ran first in %d of 200 repetitions: want a fair coin", baseFirst)
	}
	if c := Order(200, 2); slicesEqual(a, c) {
		t.Error("seeds 1 and 2 give the same order")
	}
}

func slicesEqual(a, b [][]string) bool {
	for i := range a {
		if a[i][0] != b[i][0] {
			return false
		}
	}
	return true
}

func TestWithThreshold(t *testing.T) {
	got, err := WithThreshold(DefaultPrimary(), metric.P10, 3)
	if err != nil || got[0].Threshold != 3 || got[1].Threshold != DefaultPrimary()[1].Threshold {
		t.Errorf("WithThreshold(p10_us=3) = %v, %v", got, err)
	}
	if got, _ := WithThreshold(DefaultPrimary(), "all", 4); got[0].Threshold != 4 || got[1].Threshold != 4 {
		t.Errorf("WithThreshold(all=4) = %v", got)
	}
	if _, err := WithThreshold(DefaultPrimary(), metric.P99, 3); err == nil {
		t.Error("a threshold for a metric that is not primary was accepted")
	}
}
