package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// latencyClass is the programming latencies of one kind of event in a
// timeline run, as svclab's probe and as kube-proxy measured them.
type latencyClass struct {
	name   string
	events int
	// probe are the changes' probe latencies (the events' largest, for
	// records made before changes were kept).
	probe []float64
	// kubeProxy are the syncs' mean network programming latencies, of
	// observed observations in all (0: not recorded; each mean then
	// weighs one).
	kubeProxy []float64
	observed  int
	weighted  float64
}

// latencyClasses groups r's events by kind (the first word of what they
// did: rollingUpdate, createServices, restartKubeProxy, ...), in order of
// first appearance.
func latencyClasses(r results.TimelineRun) []*latencyClass {
	var out []*latencyClass
	only := onlyProbedEvent(r)
	for ei, e := range r.Events {
		name, _, _ := strings.Cut(e.What, " ")
		i := slices.IndexFunc(out, func(c *latencyClass) bool { return c.name == name })
		if i < 0 {
			out = append(out, &latencyClass{name: name})
			i = len(out) - 1
		}
		c := out[i]
		c.events++
		switch {
		case len(e.LatenciesS) > 0:
			c.probe = append(c.probe, e.LatenciesS...)
		case ei == only:
			c.probe = append(c.probe, r.ChangeLatenciesS...)
		case e.ProbeLatencyS != nil:
			c.probe = append(c.probe, *e.ProbeLatencyS)
		}
		c.kubeProxy = append(c.kubeProxy, e.KubeProxyLatencyS...)
		c.observed += e.KubeProxyObserved
		c.weighted += e.KubeProxyMeanS * float64(e.KubeProxyObserved)
	}
	return out
}

// kubeProxyMean is the mean of kube-proxy's observations (of its syncs'
// means when the counts were not recorded).
func (c *latencyClass) kubeProxyMean() float64 {
	if len(c.kubeProxy) == 0 {
		return 0
	}
	if c.observed == 0 {
		return stat.Mean(c.kubeProxy, nil)
	}
	return c.weighted / float64(c.observed)
}

// writeLatencyClasses writes, per kind of event, svclab's probe beside
// kube-proxy's own network_programming_duration_seconds.
func writeLatencyClasses(w io.Writer, r results.TimelineRun) {
	classes := latencyClasses(r)
	if !slices.ContainsFunc(classes, func(c *latencyClass) bool { return len(c.probe)+len(c.kubeProxy) > 0 }) {
		return
	}
	fmt.Fprintf(w, "Programming latency per kind of event: svclab's probe (event → first connection in the new state, per change) beside kube-proxy's own network_programming_duration_seconds (trigger time → end of the sync that programmed it):\n\n")
	fmt.Fprintf(w, "| event | events | probe: changes | probe p50 (s) | probe max (s) | kube-proxy: syncs | observations | kube-proxy mean (s) | kube-proxy max sync mean (s) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range classes {
		probeP50, probeMax, kpMean, kpMax := "–", "–", "–", "–"
		if len(c.probe) > 0 {
			probeP50, probeMax = fmt.Sprintf("%.3f", stats.Median(c.probe)), fmt.Sprintf("%.3f", slices.Max(c.probe))
		}
		observed := "–"
		if len(c.kubeProxy) > 0 {
			kpMean, kpMax = fmt.Sprintf("%.3f", c.kubeProxyMean()), fmt.Sprintf("%.3f", slices.Max(c.kubeProxy))
			if c.observed > 0 {
				observed = fmt.Sprint(c.observed)
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %d | %s | %s | %s |\n", c.name, c.events, len(c.probe), probeP50, probeMax, len(c.kubeProxy), observed, kpMean, kpMax)
	}
	fmt.Fprintln(w)
}

// onlyProbedEvent is the index of the one event with a probe latency in a
// record made before events kept their changes' latencies (all of the
// run's ChangeLatenciesS are then its), or -1.
func onlyProbedEvent(r results.TimelineRun) int {
	only := -1
	for i, e := range r.Events {
		if len(e.LatenciesS) > 0 {
			return -1
		}
		if e.ProbeLatencyS != nil {
			if only >= 0 {
				return -1
			}
			only = i
		}
	}
	return only
}
