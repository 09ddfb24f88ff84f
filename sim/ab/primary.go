package ab

import (
	"fmt"
	"slices"

	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/metric"
)

// Primary is one gated comparison's rule: a metric, its threshold, and the
// service count it is compared at (0: the largest the run measured, where a
// per-service cost shows most).
type Primary struct {
	Metric    string  `json:"metric"`
	Threshold float64 `json:"threshold_pct"`
	Services  int     `json:"services,omitempty"`
}

// DefaultPrimary gates first-packet p10 latency (the fastest tenth of the
// connections: the rules' cost with the least scheduling noise) and full
// sync time, the quantities a dataplane change moves, at the largest
// service count, with svclab gate's default thresholds (latency's for p10).
func DefaultPrimary() []Primary {
	return []Primary{
		{Metric: metric.P10, Threshold: compare.DefaultThresholds[metric.P50]},
		{Metric: metric.SyncFull, Threshold: compare.DefaultThresholds[metric.SyncFull]},
	}
}

// WithThreshold returns the rules with threshold pct for every rule of the
// metric called name, or of every metric when name is "all".
func WithThreshold(rules []Primary, name string, pct float64) ([]Primary, error) {
	out := slices.Clone(rules)
	found := false
	for i := range out {
		if name == "all" || out[i].Metric == name {
			out[i].Threshold, found = pct, true
		}
	}
	if !found {
		return nil, fmt.Errorf("threshold for %s: no primary metric is called that (primary: %s)", name, primaryNames(rules))
	}
	return out, nil
}

func primaryNames(rules []Primary) string {
	s := ""
	for i, r := range rules {
		if i > 0 {
			s += ", "
		}
		s += r.Metric
	}
	return s
}

// gatedAt says which rule, if any, gates metric name at point k, given the
// largest service count the run measured on k's dataplane.
func gatedAt(rules []Primary, name string, k Point, largest int) (Primary, bool) {
	for _, r := range rules {
		want := r.Services
		if want == 0 {
			want = largest
		}
		if r.Metric == name && k.Services == want {
			return r, true
		}
	}
	return Primary{}, false
}
