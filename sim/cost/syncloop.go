package cost

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// syncLoop is kube-proxy's sync loop as v1.34 to v1.37 run it
// (pkg/proxy/runner's BoundedFrequencyRunner, and the proxier's hourly full
// sync), fed by endpoint changes arriving as a Poisson process:
//
//   - at least minSync (--min-sync-period) passes between the *end* of one
//     sync and the *start* of the next: a change that arrives meanwhile
//     waits for that cooldown, and one that arrives while a sync runs waits
//     for the sync, the cooldown and the next sync (the proxier reads its
//     change trackers when a sync starts);
//   - a change that arrives when the cooldown is over and nothing is
//     pending starts a sync at once;
//   - a sync carries every change queued since the last one started, and
//     a partial sync carrying k changes takes partial(k) seconds;
//   - the first sync to start an hour (FullSyncPeriodS) or more after the
//     last full one is full: it takes full seconds whatever it carries.
type syncLoop struct {
	churn, minSync, full float64
	partial              func(k float64) float64
}

// Bounds of a simulated loop: two hours of changes (one hourly full sync
// in the middle), at most maxSyncs syncs.
const (
	loopHorizonS = 2 * FullSyncPeriodS
	maxSyncs     = 500_000
	loopSeed     = 23
)

// carried is what one sync carried: weight changes whose latencies are
// uniform over [lo, hi] (lo = hi: one change that started the sync).
type carried struct{ lo, hi, weight float64 }

// below is how many of the sync's changes waited at most x seconds.
func (c carried) below(x float64) float64 {
	switch {
	case x >= c.hi:
		return c.weight
	case x < c.lo:
		return 0
	}
	return c.weight * (x - c.lo) / (c.hi - c.lo)
}

// quantiles runs the loop over its horizon and returns the latency
// quantiles q of its changes (seconds, from arrival to the end of the sync
// that carried the change), by bisection on their distribution.
func (l syncLoop) quantiles(q ...float64) []float64 {
	syncs := l.run()
	total, lo, hi := 0.0, math.Inf(1), 0.0
	for _, c := range syncs {
		total, lo, hi = total+c.weight, math.Min(lo, c.lo), math.Max(hi, c.hi)
	}
	out := make([]float64, len(q))
	for i, want := range q {
		a, b := lo, hi
		for range 100 {
			mid, acc := (a+b)/2, 0.0
			for _, c := range syncs {
				acc += c.below(mid)
			}
			if acc >= want*total {
				b = mid
			} else {
				a = mid
			}
		}
		out[i] = b
	}
	return out
}

// run simulates the loop with a fixed seed, so a prediction is the same
// every time it is made.
func (l syncLoop) run() []carried {
	if l.churn <= 0 {
		s := l.partial(1)
		return []carried{{lo: s, hi: s, weight: 1}}
	}
	rng := rand.New(rand.NewPCG(loopSeed, loopSeed))
	var syncs []carried
	lastFull, lastStart, ready := 0.0, 0.0, 0.0
	for len(syncs) < maxSyncs && lastStart < loopHorizonS {
		// Changes queued since the last sync started, up to the end of
		// its cooldown: uniform over that window.
		window := ready - lastStart
		k := distuv.Poisson{Lambda: l.churn * window, Src: rng}.Rand()
		start := ready
		if k == 0 {
			// The loop idles; the next change starts a sync on arrival.
			start = ready + rng.ExpFloat64()/l.churn
			k, window = 1, 0
		}
		took := l.partial(k)
		if start-lastFull >= FullSyncPeriodS {
			took, lastFull = l.full, start
		}
		syncs = append(syncs, carried{lo: took, hi: took + window, weight: k})
		lastStart, ready = start, start+took+l.minSync
	}
	return syncs
}
