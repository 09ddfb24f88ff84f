package timeline

import (
	"slices"
	"time"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// Probe descriptions: what a change's programming latency measures.
const (
	probeAdded   = results.ProbeAdded
	probeRemoved = results.ProbeRemoved
	probeCreated = results.ProbeCreated
	probeRestart = results.ProbeRestart
)

// changeLatency is one change's probe latency.
type changeLatency struct {
	probe     string
	latency   time.Duration
	converged bool
}

// lateApply: a restart applied this long after its time is said to be
// late (the kill and the rules' removal take less).
const lateApply = 500 * time.Millisecond

// endOfWindow: a removed endpoint still reached in the window's last
// second has not stopped being reached.
const endOfWindow = time.Second

// latencyOf measures change i's programming latency from the observations
// (in time order); ok is false for a change nothing probes.
func (a *aggregation) latencyOf(i int, obs []Observation) (changeLatency, bool) {
	c := &a.plan.Changes[i]
	after := obs[firstAt(obs, c.At):]
	mine := func(o Observation) bool {
		return o.Traffic >= 0 && o.Traffic < len(a.tl.Traffic) && a.tl.Traffic[o.Traffic].Service == c.Service && o.Kind == Delivered
	}
	switch {
	case c.Created > 0 && !a.plan.Probed(i):
		return changeLatency{}, false
	case c.Created > 0:
		j := slices.IndexFunc(after, func(o Observation) bool { return o.Traffic == ProbeTraffic && o.Change == i && o.Kind == Delivered })
		return found(probeCreated, after, j, c.At), true
	case c.Restart:
		t0 := a.appliedAt(i, obs)
		from := obs[firstAt(obs, t0):]
		return found(probeRestart, from, a.servedAgain(i, from), t0), true
	case len(c.Added) > 0 && a.generates(c.Service):
		j := slices.IndexFunc(after, func(o Observation) bool { return mine(o) && slices.Contains(c.Added, o.Endpoint) })
		return found(probeAdded, after, j, c.At), true
	case len(c.Removed) > 0 && a.generates(c.Service):
		last := time.Duration(-1)
		for _, o := range after {
			if mine(o) && slices.Contains(c.Removed, o.Endpoint) {
				last = o.At
			}
		}
		if last < 0 {
			return changeLatency{probe: probeRemoved, converged: true}, true
		}
		return changeLatency{probe: probeRemoved, latency: last - c.At, converged: last < a.tl.Duration-endOfWindow}, true
	}
	return changeLatency{}, false
}

// servedAgain is the index in after (the observations from when restart
// change i was applied on) of the first connection served after the restart's outage: the
// longest run of connections not served before the next change, so that
// connections still served by the old rules in the moment before they
// were removed, and a stray timeout afterwards, do not count (an outage
// that lasts past the next change ends at the first connection served,
// whenever that is). With no outage it is the first one served. Datagrams sent are not outcomes
// (a UDP generator's outage shows only as missing deliveries), so for
// UDP it is the first delivery after the restart. -1: never served.
func (a *aggregation) servedAgain(i int, after []Observation) int {
	end := a.tl.Duration
	for j, c := range a.plan.Changes[i+1:] {
		if c.At > a.plan.Changes[i].At {
			end = a.appliedAt(i+1+j, a.obs)
			break
		}
	}
	first, best, runStart, runLen, bestLen := -1, -1, -1, 0, 0
	for j, o := range after {
		if o.At >= end {
			break
		}
		if o.Traffic < 0 || o.Kind == Sent {
			continue
		}
		if a.classify(o).Served == 0 {
			if runLen == 0 {
				runStart = j
			}
			runLen++
			continue
		}
		if first < 0 {
			first = j
		}
		if runLen > bestLen {
			best, bestLen = j, runLen
		}
		runLen = 0
	}
	switch {
	case runLen > bestLen && runStart >= 0:
		// The longest outage lasted until the next change: that one was
		// applied once this restart's first sync ended (a restart waits
		// for it), so the first connection served after is this one's.
		for j := runStart; j < len(after); j++ {
			if o := after[j]; o.Traffic >= 0 && o.Kind != Sent && a.classify(o).Served > 0 {
				return j
			}
		}
		return -1
	case bestLen > 0:
		return best
	}
	return first
}

// appliedAt is when the lab applied change i (its Applied observation),
// or its planned time when none was recorded.
func (a *aggregation) appliedAt(i int, obs []Observation) time.Duration {
	for _, o := range obs[firstAt(obs, a.plan.Changes[i].At):] {
		if o.Kind == Applied && o.Change == i {
			return o.At
		}
	}
	return a.plan.Changes[i].At
}

// generates says some traffic generator sends to the service.
func (a *aggregation) generates(svc string) bool {
	return svc != "" && slices.ContainsFunc(a.tl.Traffic, func(t scenario.Traffic) bool { return t.Service == svc })
}

func found(probe string, obs []Observation, j int, at time.Duration) changeLatency {
	if j < 0 {
		return changeLatency{probe: probe}
	}
	return changeLatency{probe: probe, latency: obs[j].At - at, converged: true}
}

// firstAt is the index of the first observation at or after t.
func firstAt(obs []Observation, t time.Duration) int {
	i, _ := slices.BinarySearchFunc(obs, t, func(o Observation, t time.Duration) int {
		if o.At < t {
			return -1
		}
		return 1
	})
	return i
}

// events fills the run's per-event results and the latency summary.
func (a *aggregation) events(run *results.TimelineRun, obs []Observation) {
	var all []float64
	for e, ev := range a.tl.Events {
		out := results.TimelineEvent{Index: e, What: ev.String(), AtS: ev.At.Seconds(), Converged: true}
		if ev.Comment != "" {
			out.What += " (" + ev.Comment + ")"
		}
		var worst time.Duration
		probed := false
		for i := range a.plan.Changes {
			if a.plan.Changes[i].Event != e {
				continue
			}
			l, ok := a.latencyOf(i, obs)
			if !ok {
				continue
			}
			if late := a.appliedAt(i, obs) - a.plan.Changes[i].At; a.plan.Changes[i].Restart && late > lateApply {
				out.AppliedLateS = late.Seconds()
			}
			if !probed {
				out.Probe = l.probe
			}
			probed = true
			out.Converged = out.Converged && l.converged
			if l.converged {
				worst = max(worst, l.latency)
				all = append(all, l.latency.Seconds())
				out.LatenciesS = append(out.LatenciesS, l.latency.Seconds())
			} else {
				run.Unconverged++
			}
		}
		if probed && out.Converged {
			v := worst.Seconds()
			out.ProbeLatencyS = &v
			out.Lasted = out.Probe == probeRemoved && ev.At+worst >= a.nextEventAt(e)-endOfWindow
		}
		if !probed {
			out.Probe = "not probed"
		}
		out.After = a.outcomesBetween(run, ev.At, a.nextEventAt(e))
		run.Events = append(run.Events, out)
	}
	run.ProbeLatencyP50S, run.ProbeLatencyP99S = percentile(all, 0.5), percentile(all, 0.99)
	run.ChangeLatenciesS = all
}

// nextEventAt is when the event after e starts at a later time (the
// window's end when none does).
func (a *aggregation) nextEventAt(e int) time.Duration {
	for _, ev := range a.tl.Events[e+1:] {
		if ev.At > a.tl.Events[e].At {
			return ev.At
		}
	}
	return a.tl.Duration
}

// outcomesBetween sums the seconds in [from, to) of every generator.
func (a *aggregation) outcomesBetween(run *results.TimelineRun, from, to time.Duration) results.Outcome {
	var out results.Outcome
	for s := int(from / time.Second); s < len(run.Seconds) && time.Duration(s)*time.Second < to; s++ {
		for _, o := range run.Seconds[s].Traffic {
			out.Add(o)
		}
	}
	return out
}

// AttachSyncs sets run's syncs and gives each event the mean network
// programming latency kube-proxy observed in every sync from the event to
// the next one (the syncs that carried its changes).
func AttachSyncs(run *results.TimelineRun, t *scenario.Timeline, syncs []results.TimelineSync) {
	run.Syncs = syncs
	for e := range run.Events {
		ev := t.Events[run.Events[e].Index]
		end := t.Duration
		for _, n := range t.Events[run.Events[e].Index+1:] {
			if n.At > ev.At {
				end = n.At
				break
			}
		}
		for _, s := range syncs {
			if at := time.Duration(s.AtS * float64(time.Second)); s.Programmed > 0 && at >= ev.At && at < end {
				run.Events[e].KubeProxyLatencyS = append(run.Events[e].KubeProxyLatencyS, s.ProgrammingS)
				run.Events[e].KubeProxyObserved += s.Programmed
				run.Events[e].KubeProxyMeanS += s.ProgrammingS * float64(s.Programmed)
			}
		}
		if n := run.Events[e].KubeProxyObserved; n > 0 {
			run.Events[e].KubeProxyMeanS /= float64(n)
		}
	}
}
