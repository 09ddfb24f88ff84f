package cost

import (
	"math"

	"github.com/svclab/svclab/sim/scenario"
)

// Defaults of kube-proxy's sync loop (v1.28 and later, iptables and
// nftables modes).
const (
	// DefaultMinSyncPeriodS is --min-sync-period: the least time from the
	// end of one sync to the start of the next.
	DefaultMinSyncPeriodS = 1.0
	// FullSyncPeriodS: kube-proxy's iptables and nftables proxiers force
	// a full sync once an hour (proxyutil.FullSyncPeriod); every other
	// sync is partial.
	FullSyncPeriodS = 3600.0
)

// ProgrammingLatency is the network programming latency (the time from an
// endpoint change to the end of the sync that carries it, the SLI
// kube-proxy reports as network_programming_duration_seconds) at a churn
// rate: kube-proxy's sync loop (syncLoop: --min-sync-period counted from
// the end of one sync to the start of the next, a partial sync carrying
// every change queued since the last one started, a full sync once an
// hour) simulated over two hours of Poisson changes.
//
// A partial sync carrying k changes takes s + (k-1)·c, s one change's
// incremental sync and c the cost each further change adds (PerChangeS,
// from a calibration that timed a batch; without one c = 0, which
// underestimates a busy loop).
type ProgrammingLatency struct {
	ChurnPerSec    float64 `json:"churn_per_s"`
	MinSyncPeriodS float64 `json:"min_sync_period_s"`
	// ChangeKind is what the churn's changes are (Query.ChurnKind).
	ChangeKind string   `json:"change_kind,omitempty"`
	P50s       Estimate `json:"p50_s"`
	P99s       Estimate `json:"p99_s"`
	// PerChangeS is c; nil when the calibration timed no batch.
	PerChangeS *Estimate `json:"per_change_s,omitempty"`
	// FallsBehind is set when each change adds at least 1/churn seconds
	// to a sync: the loop cannot keep up and the latency grows for as
	// long as the churn lasts (the figures are those of two hours of it).
	FallsBehind bool `json:"falls_behind,omitempty"`
}

// NewProgrammingLatency predicts the latency from the estimates of one
// change's partial sync, of each further change's cost in a batch (nil:
// not calibrated) and of the full sync (nil: not calibrated, left out).
// Intervals carry through: the bounds are the latencies at the inputs'
// bounds.
func NewProgrammingLatency(churn, minSync float64, partial Estimate, perChange *Estimate, full *SyncPrediction) *ProgrammingLatency {
	var fullS, perChangeS Estimate
	if full != nil {
		fullS = full.Seconds
	}
	p := &ProgrammingLatency{ChurnPerSec: churn, MinSyncPeriodS: minSync}
	if perChange != nil {
		perChangeS = *perChange
		p.PerChangeS = perChange
		p.FallsBehind = churn*perChange.Value >= 1
	}
	at := func(s, c, f float64) (p50, p99 float64) {
		s, c = math.Max(s, 0), math.Max(c, 0)
		loop := syncLoop{churn: churn, minSync: minSync, full: math.Max(f, 0),
			partial: func(k float64) float64 { return s + (k-1)*c }}
		q := loop.quantiles(0.5, 0.99)
		return q[0], q[1]
	}
	p.P50s.Value, p.P99s.Value = at(partial.Value, perChangeS.Value, fullS.Value)
	p.P50s.Lo, p.P99s.Lo = at(partial.Lo, perChangeS.Lo, fullS.Lo)
	p.P50s.Hi, p.P99s.Hi = at(partial.Hi, perChangeS.Hi, fullS.Hi)
	p.P50s.NoInterval, p.P99s.NoInterval = partial.NoInterval, partial.NoInterval
	return p
}

// ChurnKindName names a kind of change (sweep.incrementalBatchKind, a
// query's ChurnKind) in text: "Service creations" for
// scenario.BatchServices, "endpoint changes" otherwise.
func ChurnKindName(kind string) string {
	if kind == scenario.BatchServices {
		return "Service creations"
	}
	return "endpoint changes"
}
