package cost

import (
	"math"
	"sort"
)

// Defaults of kube-proxy's sync loop (v1.28 and later, iptables and
// nftables modes).
const (
	// DefaultMinSyncPeriodS is --min-sync-period: syncs start at most once
	// per period.
	DefaultMinSyncPeriodS = 1.0
	// FullSyncPeriodS: kube-proxy's iptables and nftables proxiers force
	// a full sync once an hour (proxyutil.FullSyncPeriod); every other
	// sync is partial.
	FullSyncPeriodS = 3600.0
)

// ProgrammingLatency is the network programming latency (the time from an
// endpoint change to the rules that carry it, the SLI kube-proxy reports
// as network_programming_duration_seconds) at a churn rate, from the sync
// times and kube-proxy's sync-loop rules:
//
//   - syncs start at most once per --min-sync-period T and never overlap,
//     so back to back they start every C = max(T, s) (s: a partial sync);
//   - a change arriving while the loop is idle and T has passed since the
//     last start is synced at once: latency s;
//   - otherwise it waits for the next start (uniform over the cycle) and
//     then the sync: latency U·C + s. With Poisson changes at rate λ the
//     share of changes that wait is min(1, λ·C);
//   - once an hour the sync is full (F seconds); a change arriving during
//     it (a share F/3600 of the time) waits for its remainder, U·F, first.
//
// A partial sync is assumed to cost what one change's incremental sync
// costs however many changes it batches (kube-proxy rewrites the changed
// services' chains and, in iptables mode, KUBE-SERVICES whole).
type ProgrammingLatency struct {
	ChurnPerSec    float64  `json:"churn_per_s"`
	MinSyncPeriodS float64  `json:"min_sync_period_s"`
	P50s           Estimate `json:"p50_s"`
	P99s           Estimate `json:"p99_s"`
	// Waiting is the share of changes that wait for a sync cycle.
	Waiting float64 `json:"waiting"`
}

// NewProgrammingLatency predicts the latency from the partial sync time's
// estimate (its interval carries through: the bounds are the latencies at
// its bounds) and the full sync's (nil: not calibrated, left out).
func NewProgrammingLatency(churn, minSync float64, partial Estimate, full *SyncPrediction) *ProgrammingLatency {
	var fullS Estimate
	if full != nil {
		fullS = full.Seconds
	}
	p := &ProgrammingLatency{ChurnPerSec: churn, MinSyncPeriodS: minSync}
	at := func(s, f float64) (p50, p99, waiting float64) {
		return programmingQuantiles(churn, minSync, s, f)
	}
	var lo50, lo99, hi50, hi99 float64
	p.P50s.Value, p.P99s.Value, p.Waiting = at(partial.Value, fullS.Value)
	lo50, lo99, _ = at(partial.Lo, fullS.Lo)
	hi50, hi99, _ = at(partial.Hi, fullS.Hi)
	p.P50s.Lo, p.P50s.Hi, p.P99s.Lo, p.P99s.Hi = lo50, hi50, lo99, hi99
	p.P50s.NoInterval, p.P99s.NoInterval = partial.NoInterval, partial.NoInterval
	return p
}

// programmingQuantiles evaluates the latency distribution ProgrammingLatency
// describes on a fine grid of its mixture and returns its p50 and p99.
func programmingQuantiles(churn, minSync, s, full float64) (p50, p99, waiting float64) {
	s, full = math.Max(s, 0), math.Max(full, 0)
	cycle := math.Max(minSync, s)
	waiting = math.Min(1, churn*cycle)
	during := math.Min(1, full/FullSyncPeriodS)
	const grid = 2000
	var samples []float64
	weights := map[float64]float64{}
	add := func(v, w float64) {
		if w <= 0 {
			return
		}
		if _, ok := weights[v]; !ok {
			samples = append(samples, v)
		}
		weights[v] += w
	}
	for i := range grid {
		u := (float64(i) + 0.5) / grid
		for _, f := range []struct{ extra, w float64 }{{0, 1 - during}, {u * full, during}} {
			add(s+f.extra, f.w*(1-waiting)/grid)
			add(s+f.extra+u*cycle, f.w*waiting/grid)
		}
	}
	sort.Float64s(samples)
	quantile := func(q float64) float64 {
		acc := 0.0
		for _, v := range samples {
			if acc += weights[v]; acc >= q {
				return v
			}
		}
		return samples[len(samples)-1]
	}
	return quantile(0.5), quantile(0.99), waiting
}
