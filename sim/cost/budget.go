package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
)

// Budget is a limit on one predicted figure: the inverse question "how
// large can the cluster grow and stay within it?".
type Budget struct {
	// Figure is one of BudgetFigures' keys.
	Figure string  `json:"figure"`
	Limit  float64 `json:"limit"` // µs for latencies, seconds for syncs
	Text   string  `json:"text"`
}

// BudgetFigures name the figures a budget can limit and their units.
var BudgetFigures = map[string]string{
	"p50":         "µs first-packet p50 (connect)",
	"p99":         "µs first-packet p99 (connect)",
	"sync":        "s full sync",
	"incremental": "s incremental sync",
	"npl99":       "s network programming latency p99",
}

// ParseBudget reads "p99=500us", "sync=10s", "npl99=30s" (a Go duration;
// a bare number is µs for latencies and seconds for syncs).
func ParseBudget(s string) (Budget, error) {
	key, val, ok := strings.Cut(s, "=")
	unit, known := BudgetFigures[key]
	if !ok || !known {
		return Budget{}, fmt.Errorf("budget %q: want FIGURE=LIMIT with FIGURE one of p50, p99, sync, incremental, npl99 (e.g. p99=500us, sync=10s)", s)
	}
	inMicros := strings.HasPrefix(unit, "µs")
	limit, err := strconv.ParseFloat(val, 64)
	if err != nil {
		d, derr := time.ParseDuration(strings.ReplaceAll(val, "µ", "u"))
		if derr != nil {
			return Budget{}, fmt.Errorf("budget %q: %q is neither a number nor a duration like 500us or 10s", s, val)
		}
		limit = d.Seconds()
		if inMicros {
			limit = float64(d) / float64(time.Microsecond)
		}
	}
	if !(limit > 0) || math.IsInf(limit, 0) {
		return Budget{}, fmt.Errorf("budget %q: want a limit > 0", s)
	}
	return Budget{Figure: key, Limit: limit, Text: s}, nil
}

// value is the prediction's figure the budget limits (ok false when the
// dataplane does not predict it).
func (b Budget) value(p Prediction) (float64, bool) {
	switch b.Figure {
	case "p50":
		return p.P50us.Total.Value, true
	case "p99":
		if p.P99us != nil {
			return p.P99us.Total.Value, true
		}
	case "sync":
		if p.SyncFull != nil {
			return p.SyncFull.Seconds.Value, true
		}
	case "incremental":
		if p.SyncIncremental != nil {
			return p.SyncIncremental.Seconds.Value, true
		}
	case "npl99":
		if p.Programming != nil {
			return p.Programming.P99s.Value, true
		}
	}
	return 0, false
}

// BudgetResult is the largest cluster of the query's shape within a budget
// on one dataplane.
type BudgetResult struct {
	Dataplane string `json:"dataplane"`
	Budget    Budget `json:"budget"`
	// Services is the largest service count within the budget (0: not even
	// one service; MaxQueryServices with Unbounded: the whole range);
	// Scale is it as a multiple of the query's cluster (with Composition).
	Services  int     `json:"services"`
	Scale     float64 `json:"scale,omitempty"`
	Unbounded bool    `json:"unbounded,omitempty"`
	// Predicted says the dataplane predicts the figure at all.
	Predicted bool `json:"predicted"`
}

// Largest answers a budget for every dataplane of the model: the largest
// number of services of the query's shape (its Composition scaled, or N
// synthetic services with its endpoints) whose predicted value (the
// estimate, not its bound) stays within the limit, by bisection (the
// predictions grow with N).
func (m *Model) Largest(q Query, b Budget) ([]BudgetResult, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var out []BudgetResult
	for i := range m.Dataplanes {
		dm := &m.Dataplanes[i]
		if q.Dataplane != "" && dm.Dataplane != q.Dataplane {
			continue
		}
		r := BudgetResult{Dataplane: dm.Dataplane, Budget: b}
		within := func(n int) (bool, bool) {
			p := m.predictOne(dm, q.at(n), q.sizeAt(dm.Mode, n))
			v, ok := b.value(p)
			return ok && v <= b.Limit, ok
		}
		ok1, predicted := within(1)
		r.Predicted = predicted
		switch okMax, _ := within(MaxQueryServices); {
		case !predicted || !ok1:
		case okMax:
			r.Services, r.Unbounded = MaxQueryServices, true
		default:
			lo, hi := 1, MaxQueryServices
			for hi-lo > 1 {
				if mid := lo + (hi-lo)/2; func() bool { ok, _ := within(mid); return ok }() {
					lo = mid
				} else {
					hi = mid
				}
			}
			r.Services = lo
		}
		if q.Composition != nil && q.Composition.Services > 0 {
			r.Scale = q.Composition.Scale * float64(r.Services) / float64(q.Composition.Services)
		}
		out = append(out, r)
	}
	return out, nil
}

// at is the query for n services of its shape (the composition scaled).
func (q Query) at(n int) Query {
	q.Services = n
	if q.Composition != nil {
		c := q.Composition.scaled(n)
		q.Composition = &c
	}
	return q
}

// sizeAt is the ruleset of n services of the query's shape, counts only
// (no bytes: a budget search renders nothing).
func (q Query) sizeAt(mode string, n int) Size {
	if q.Composition != nil {
		return q.Composition.scaled(n).Modes[mode]
	}
	s, _ := countsOf(mode, n, q.EndpointsPerService)
	s.HashTables, _ = syntheticHashTables(mode, n, q.EndpointsPerService)
	s.AnonymousSetWork, _ = syntheticWork(mode, n, q.EndpointsPerService)
	s.RecentTables, _ = syntheticRecentTables(mode, n, q.EndpointsPerService)
	if mode == string(dataplane.ModeIPTables) {
		s.ChainList, _ = scaledChainList(n, q.EndpointsPerService, false)
		s.PartialChainList, _ = scaledChainList(n, q.EndpointsPerService, true)
	}
	return s
}

// scaled is the composition of n services of the same shape: every count
// above the empty ruleset's grows in proportion (the mix's services are
// alike on average).
func (c Composition) scaled(n int) Composition {
	f := float64(n) / float64(max(c.Services, 1))
	grow := func(v, fixed int) int { return fixed + int(math.Round(float64(v-fixed)*f)) }
	out := Composition{Source: c.Source, Scale: c.Scale * f, Services: n, Endpoints: int(math.Round(float64(c.Endpoints) * f)),
		ServiceRules: grow(c.ServiceRules, 1), Walk: c.Walk.scaled(f), Modes: map[string]Size{}}
	for mode, s := range c.Modes {
		out.Modes[mode] = s.scaled(f)
	}
	return out
}

// scaled is the size of f times the services of the same shape: every
// count above the empty ruleset's grows in proportion, the partial sync's
// family's too.
func (s Size) scaled(f float64) Size {
	fixed, _ := countsOf(s.Mode, 0, 0)
	grow := func(v, fixed int) int { return fixed + int(math.Round(float64(v-fixed)*f)) }
	var families, familyChains []int
	for _, r := range s.FamilyRules {
		families = append(families, grow(r, fixed.Rules))
	}
	for _, c := range s.FamilyChains {
		familyChains = append(familyChains, grow(c, fixed.Chains))
	}
	out := Size{Mode: s.Mode, Rules: grow(s.Rules, fixed.Rules), FamilyRules: families, FamilyChains: familyChains, Chains: grow(s.Chains, fixed.Chains),
		Elements: grow(s.Elements, fixed.Elements), Bytes: int(math.Round(float64(s.Bytes) * f)),
		HashTables: scaledCounts(s.HashTables, f), ChainList: scaledWalk(s.ChainList, f), PartialChainList: scaledWalk(s.PartialChainList, f),
		PartialRules:     int(math.Round(float64(s.PartialRules) * f)),
		AnonymousSetWork: s.AnonymousSetWork.scaled(f),
		RecentTables:     int(math.Round(float64(s.RecentTables) * f)), RecentSync: scaledRecentSync(s.RecentSync, f)}
	if s.Partial != nil {
		p := s.Partial.scaled(f)
		out.Partial = &p
	}
	return out
}

// scaledWalk is a chain-list walk of a payload of f times the services:
// lists f times as long, walked f times as often (nil stays nil).
func scaledWalk(w *iptables.ChainListWork, f float64) *iptables.ChainListWork {
	if w == nil {
		return nil
	}
	return w.Scaled(f, f*f)
}

// scaledCounts is each count times f, rounded: a hash table's fixed
// entries (a few chains) are too few to matter where its array steps.
func scaledCounts(counts []int, f float64) []int {
	if counts == nil {
		return nil
	}
	out := make([]int, len(counts))
	for i, c := range counts {
		out[i] = int(math.Round(float64(c) * f))
	}
	return out
}
