package compare

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// Timeline gate thresholds: a timeline run regresses when a larger share
// of its traffic reached deleted pods or removed endpoints (by more than
// StaleSharePct percentage points, significantly), when more of its
// changes never converged, when its changes' probe latencies grew by
// more than ProbeLatencyPct percent (significantly), or when their p99
// grew by more than ProbeLatencyPct percent with significantly many
// changes slower than base's slowest (the tail, which a shift of the
// median does not show).
const (
	StaleSharePct   = 0.1
	ProbeLatencyPct = 20
)

// TimelineComparison is one dataplane's timeline run in base and in new.
type TimelineComparison struct {
	Dataplane string
	Base, New results.TimelineRun
	// StaleP is the one-sided p-value of a larger stale share in new
	// (a two-proportion z test).
	StaleP float64
	// Latency compares the changes' probe latencies (empty when a side
	// has none).
	Latency stats.Comparison
	// TailK of new's changes were slower than base's slowest; TailP is
	// the exact one-sided p-value of that many or more when both sides
	// come from one distribution (tailP).
	TailK int
	TailP float64
}

// TimelineFailure is one timeline regression.
type TimelineFailure struct {
	Comparison TimelineComparison
	What       string
}

// String is the gate's line, e.g. "REGRESSION blackholed iptables-nft
// (timeline): 0 of 30,000 → 23,781 of 30,000 ...".
func (f TimelineFailure) String() string {
	return fmt.Sprintf("REGRESSION %s %s (timeline): %s", f.What, f.Comparison.Dataplane, f.detail())
}

func (f TimelineFailure) detail() string {
	b, n := f.Comparison.Base, f.Comparison.New
	switch f.What {
	case "blackholed":
		bs, bt := stale(b)
		ns, nt := stale(n)
		return fmt.Sprintf("%d of %d → %d of %d connections or datagrams reached deleted pods or removed endpoints (p=%.3g, threshold +%g points)",
			bs, bt, ns, nt, f.Comparison.StaleP, StaleSharePct)
	case "unconverged":
		return fmt.Sprintf("%d → %d changes never reached their new state in the window", b.Unconverged, n.Unconverged)
	case "probe_latency_p99_s":
		return fmt.Sprintf("probe latency p99 %.3f s → %.3f s (threshold +%d%%); %d of %d changes slower than base's slowest (p=%.3g)",
			b.ProbeLatencyP99S, n.ProbeLatencyP99S, ProbeLatencyPct, f.Comparison.TailK, len(n.ChangeLatenciesS), f.Comparison.TailP)
	}
	return fmt.Sprintf("probe latency %+.1f%% (p=%.3g, threshold %d%%), p99 %.3f s → %.3f s",
		f.Comparison.Latency.DeltaPct, f.Comparison.Latency.P, ProbeLatencyPct, b.ProbeLatencyP99S, n.ProbeLatencyP99S)
}

// stale is a run's blackholed and misdelivered count and its total.
func stale(r results.TimelineRun) (bad, total int) {
	for _, t := range r.Totals {
		bad += t.Blackholed + t.Misdelivered
		total += t.Total()
	}
	return bad, total
}

// compareTimelines pairs the timeline records of base and new by dataplane.
func compareTimelines(base, new []results.Record, alpha float64) []TimelineComparison {
	var out []TimelineComparison
	for _, b := range timelinesOf(base) {
		for _, n := range timelinesOf(new) {
			if b.Dataplane != n.Dataplane {
				continue
			}
			c := TimelineComparison{Dataplane: b.Dataplane, Base: b, New: n, StaleP: staleP(b, n), TailP: 1}
			if len(b.ChangeLatenciesS) > 0 && len(n.ChangeLatenciesS) > 0 {
				c.Latency = stats.Compare(b.ChangeLatenciesS, n.ChangeLatenciesS, alpha)
				c.TailK, c.TailP = tailP(b.ChangeLatenciesS, n.ChangeLatenciesS)
			}
			out = append(out, c)
		}
	}
	return out
}

func timelinesOf(records []results.Record) []results.TimelineRun {
	var out []results.TimelineRun
	for _, r := range records {
		if r.Type == results.TypeTimeline && r.Timeline != nil {
			out = append(out, *r.Timeline)
		}
	}
	return out
}

// staleP is the one-sided p-value that new's stale share exceeds base's
// (pooled two-proportion z test; 1 when neither side has traffic).
func staleP(b, n results.TimelineRun) float64 {
	bs, bt := stale(b)
	ns, nt := stale(n)
	if bt == 0 || nt == 0 {
		return 1
	}
	p1, p2 := float64(bs)/float64(bt), float64(ns)/float64(nt)
	pool := float64(bs+ns) / float64(bt+nt)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(bt) + 1/float64(nt)))
	if se == 0 {
		return 1
	}
	return 1 - distuv.UnitNormal.CDF((p2-p1)/se)
}

// timelineFailures gates the timeline comparisons at alpha.
func timelineFailures(cs []TimelineComparison, alpha float64) []TimelineFailure {
	var out []TimelineFailure
	for _, c := range cs {
		bs, bt := stale(c.Base)
		ns, nt := stale(c.New)
		if bt > 0 && nt > 0 && c.StaleP <= alpha && (float64(ns)/float64(nt)-float64(bs)/float64(bt))*100 > StaleSharePct {
			out = append(out, TimelineFailure{Comparison: c, What: "blackholed"})
		}
		if c.New.Unconverged > c.Base.Unconverged {
			out = append(out, TimelineFailure{Comparison: c, What: "unconverged"})
		}
		if c.Latency.Significant && c.Latency.DeltaPct > ProbeLatencyPct {
			out = append(out, TimelineFailure{Comparison: c, What: "probe_latency_s"})
		}
		if c.TailK > 0 && c.TailP <= alpha && c.New.ProbeLatencyP99S > c.Base.ProbeLatencyP99S*(1+ProbeLatencyPct/100.0) {
			out = append(out, TimelineFailure{Comparison: c, What: "probe_latency_p99_s"})
		}
	}
	return out
}

// tailP counts new's samples above base's largest (k) and returns the
// exact probability of k or more when base and new are exchangeable (one
// distribution, no ties): that the k largest of the pooled samples are all
// new's, C(m,k)/C(n+m,k) for n base and m new samples.
func tailP(base, new []float64) (k int, p float64) {
	top := slices.Max(base)
	for _, x := range new {
		if x > top {
			k++
		}
	}
	n, m := float64(len(base)), float64(len(new))
	p = 1
	for i := range k {
		p *= (m - float64(i)) / (n + m - float64(i))
	}
	return k, p
}
