package cost

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
	"gonum.org/v1/gonum/stat"
)

// RecentWalk is what first packets pay for ClientIP affinity's xt_recent
// lists in one dataplane's order of them. The kernel keeps a network
// namespace's lists in one list and finds one by name by walking it from
// the start (recent_table_lookup) for every packet a recent rule checks:
// a Service's first packet looks up each endpoint's list (--rcheck, no
// match for a new client), then the chosen endpoint's (--set). A step is
// one list passed; a destination's steps are the places (1-based) of the
// lists it looks up, summed, the --set's as the mean over its endpoints.
type RecentWalk struct {
	// Lists are the xt_recent lists the payload names.
	Lists int `json:"lists"`
	// Services are the Services the walk is over: each one's first
	// destination in KUBE-SERVICES among the traced walk's (connectRows),
	// as connections spread uniformly over Services meet them.
	Services int `json:"services"`
	// First, Median, Mean, Last and P99 are the steps of the first
	// Service, over the Services (their median, mean and 99th percentile:
	// connections spread uniformly), and of the last.
	First  float64 `json:"first"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Last   float64 `json:"last"`
	P99    float64 `json:"p99"`
	// P99Lo and P99Hi are the Services' quantiles a p99 read off
	// tailConnections connections falls between 95% of the time: where
	// few Services hold the slowest 1% (ClientIP affinity over 40
	// endpoints, say), a measured p99 lands on one side or the other.
	P99Lo float64 `json:"p99_lo"`
	P99Hi float64 `json:"p99_hi"`
}

// tailConnections are the connections whose p99 the P99 band is for: a
// sweep point's (svclab plan calibrate's and the lab's default).
const tailConnections = 1000

// tail is the walk's P99 steps with their band.
func (w *RecentWalk) tail() Estimate {
	if w == nil {
		return Estimate{}
	}
	return Estimate{Value: w.P99, Lo: w.P99Lo, Hi: w.P99Hi}
}

// Recent-walk selectors beyond the positions: the slowest 1% of uniformly
// spread connections.
const recentTail = "p99"

// steps is the walk's steps at position (or recentTail), 0 for none.
func (w *RecentWalk) steps(position string) float64 {
	if w == nil {
		return 0
	}
	switch position {
	case PositionFirst:
		return w.First
	case PositionLast:
		return w.Last
	case PositionUniform, PositionMiddle:
		return w.Median
	case recentTail:
		return w.P99
	}
	return 0
}

// meanSteps is the walk's mean over the Services, 0 for none.
func (w *RecentWalk) meanSteps() float64 {
	if w == nil {
		return 0
	}
	return w.Mean
}

// scaled is the walk of f times the services: f times the lists, each at f
// times its place.
func (w *RecentWalk) scaled(f float64) *RecentWalk {
	return &RecentWalk{Lists: int(math.Round(float64(w.Lists) * f)), Services: int(math.Round(float64(w.Services) * f)), First: w.First * f,
		Median: w.Median * f, Mean: w.Mean * f, Last: w.Last * f, P99: w.P99 * f, P99Lo: w.P99Lo * f, P99Hi: w.P99Hi * f}
}

// recentSample is how many destinations a plan traces for the xt_recent
// walks when its first sample meets ClientIP affinity: the slowest 1% of
// Services are a few dozen of them, and a tail that few affinity Services
// hold (cluster-500 at 20×: 34 of 477 shapes have 40 endpoints) needs
// thousands to place its 99th percentile (about 1 s for 4,000 of 10,000
// Services' destinations).
const recentSample = 4000

// tracedRecentWalks are recentWalks over recentSample destinations of d
// (payload loaded) when rows (the first sample's connections) meet
// affinity, else nil.
func tracedRecentWalks(d *analyze.Dump, payload []byte, rows []analyze.ServiceRow, proj *model.Model, cfg route.Config) (map[string]*RecentWalk, error) {
	if !slices.ContainsFunc(rows, func(r analyze.ServiceRow) bool { return r.RecentLookups > 0 }) {
		return nil, nil
	}
	rep, err := analyze.Sample(d, podClient, analyze.Options{}, recentSample)
	if err != nil {
		return nil, fmt.Errorf("trace first packets for xt_recent: %w", err)
	}
	return recentWalks(payload, connectRows(rep.Services, proj), cfg.Mode), nil
}

// recentWalks are the RecentWalk of rows (traced through payload) for
// each rule-walk dataplane of mode, nil when no row looks a list up.
func recentWalks(payload []byte, rows []analyze.ServiceRow, mode dataplane.Mode) map[string]*RecentWalk {
	if !slices.ContainsFunc(rows, func(r analyze.ServiceRow) bool { return r.RecentLookups > 0 }) {
		return nil
	}
	rows = firstOfEachService(rows)
	out := map[string]*RecentWalk{}
	for _, info := range dataplane.All() {
		if info.Mode != mode || info.Lookup != dataplane.LinearWalk {
			continue
		}
		places := recentPlaces(payload, info.RulesCheckedSorted)
		steps := make([]float64, len(rows))
		for i, r := range rows {
			steps[i] = recentSteps(r, places)
		}
		out[string(info.Name)] = newRecentWalk(steps, len(places))
	}
	return out
}

// firstOfEachService is, of rows, each Service's first (a Service's ports
// are rows of their own: "ns/name:port").
func firstOfEachService(rows []analyze.ServiceRow) []analyze.ServiceRow {
	seen := map[string]bool{}
	var out []analyze.ServiceRow
	for _, r := range rows {
		name, _, _ := strings.Cut(r.Service, ":")
		if !seen[name] {
			seen[name] = true
			out = append(out, r)
		}
	}
	return out
}

// newRecentWalk summarises the Services' steps, in KUBE-SERVICES order.
func newRecentWalk(steps []float64, lists int) *RecentWalk {
	w := &RecentWalk{Lists: lists, Services: len(steps), First: steps[0], Last: steps[len(steps)-1]}
	for _, s := range steps {
		w.Mean += s
	}
	w.Mean /= float64(len(steps))
	sorted := slices.Sorted(slices.Values(steps))
	q := uniformTailQuantile
	band := 1.96 * math.Sqrt(q*(1-q)/tailConnections)
	quantile := func(q float64) float64 { return stat.Quantile(q, stat.Empirical, sorted, nil) }
	w.Median, w.P99 = quantile(0.5), quantile(q)
	w.P99Lo, w.P99Hi = quantile(q-band), quantile(q+band)
	return w
}

// recentSteps is a destination's steps: its checked lists' places, plus
// the mean place of the lists its endpoints set.
func recentSteps(r analyze.ServiceRow, places map[string]int) float64 {
	var steps float64
	for _, n := range r.RecentChecked {
		steps += float64(places[n])
	}
	if len(r.RecentSet) > 0 {
		var set float64
		for _, n := range r.RecentSet {
			set += float64(places[n])
		}
		steps += set / float64(len(r.RecentSet))
	}
	return steps
}
