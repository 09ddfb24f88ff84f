package timeline

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	"gonum.org/v1/gonum/stat"
)

// aggregation classifies observations against a plan.
type aggregation struct {
	obs     []Observation // in time order
	plan    *Plan
	tl      *scenario.Timeline
	deleted map[netip.Addr]time.Duration // pod → when it was deleted
}

// Aggregate classifies the observations of one window against the plan
// and sums them per second, per traffic generator and per event.
// Observations need not be in order.
func Aggregate(plan *Plan, tl *scenario.Timeline, obs []Observation) results.TimelineRun {
	a := aggregation{plan: plan, tl: tl, deleted: plan.DeletedBy(len(plan.Changes) - 1)}
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(x, y Observation) int { return int(x.At - y.At) })
	a.obs = obs
	seconds := int((tl.Duration + time.Second - 1) / time.Second)
	run := results.TimelineRun{DurationS: tl.Duration.Seconds(), Totals: make([]results.Outcome, len(tl.Traffic))}
	for _, t := range tl.Traffic {
		run.Traffic = append(run.Traffic, Describe(t))
	}
	run.Seconds = make([]results.TimelineSecond, seconds)
	sent := make([][]int, seconds)
	for s := range run.Seconds {
		run.Seconds[s] = results.TimelineSecond{Second: s, Traffic: make([]results.Outcome, len(tl.Traffic)), Endpoint: map[string]int{}}
		sent[s] = make([]int, len(tl.Traffic))
	}
	for _, o := range obs {
		if o.Traffic < 0 || o.Traffic >= len(tl.Traffic) {
			continue
		}
		s := min(max(int(o.At/time.Second), 0), seconds-1)
		if o.Kind == Sent {
			sent[s][o.Traffic]++
			continue
		}
		out := a.classify(o)
		run.Seconds[s].Traffic[o.Traffic].Add(out)
		if o.Kind == Delivered {
			run.Seconds[s].Endpoint[o.Endpoint.String()]++
		}
	}
	for s := range run.Seconds {
		for g := range tl.Traffic {
			o := &run.Seconds[s].Traffic[g]
			if tl.Traffic[g].Protocol == "UDP" {
				o.Lost = max(sent[s][g]-o.Served-o.Blackholed-o.Misdelivered, 0)
			}
			run.Totals[g].Add(*o)
		}
	}
	for _, t := range run.Totals {
		run.Blackholed += t.Blackholed
		run.Misdelivered += t.Misdelivered
	}
	a.events(&run, obs)
	return run
}

// Describe names a traffic generator, e.g. "UDP default/statsd:8125 500/s
// from pod, source port 40000".
func Describe(t scenario.Traffic) string {
	s := fmt.Sprintf("%s %s:%d %d/s from %s", t.Protocol, t.Service, t.Port, t.Rate, t.From)
	if t.SourcePort > 0 {
		s += fmt.Sprintf(", source port %d", t.SourcePort)
	}
	return s
}

// classify says what became of one observation of a generator.
func (a *aggregation) classify(o Observation) results.Outcome {
	switch o.Kind {
	case Refused:
		return results.Outcome{Refused: 1}
	case TimedOut:
		return results.Outcome{TimedOut: 1}
	}
	if at, ok := a.deleted[o.Endpoint]; ok && at <= o.At {
		return results.Outcome{Blackholed: 1}
	}
	if a.serving(a.tl.Traffic[o.Traffic].Service, o.Endpoint, o.At) {
		return results.Outcome{Served: 1}
	}
	return results.Outcome{Misdelivered: 1}
}

// serving says ip was a serving endpoint of the service at t.
func (a *aggregation) serving(svc string, ip netip.Addr, t time.Duration) bool {
	s := service(a.plan.State(a.plan.At(t)), svc)
	if s == nil {
		return false
	}
	for _, e := range s.Endpoints {
		if e.IP == ip && e.IsServing() {
			return true
		}
	}
	return false
}

// percentile is the q-quantile of xs (0 for none).
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	v := slices.Clone(xs)
	slices.Sort(v)
	return stat.Quantile(q, stat.Empirical, v, nil)
}
