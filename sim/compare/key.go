package compare

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// Key identifies a point of a run: a sweep point (Dataplane, Services,
// Position) or a fairness run (Dataplane, Service).
type Key struct {
	Dataplane string `json:"dataplane"`
	Services  int    `json:"services,omitempty"`
	Position  string `json:"position,omitempty"`
	Service   string `json:"service,omitempty"`
}

// String is "dataplane/services/position" for a sweep point and
// "dataplane/service" for a fairness run, e.g. "iptables-nft/20000/last".
func (k Key) String() string {
	return k.Dataplane + "/" + k.rest()
}

// rest is the key without its dataplane.
func (k Key) rest() string {
	if k.Service != "" {
		return k.Service
	}
	return fmt.Sprintf("%d/%s", k.Services, k.Position)
}

// withoutDataplane is the key used to match points of different dataplanes.
func (k Key) withoutDataplane() Key {
	k.Dataplane = ""
	return k
}

// PointLabel names a compared pair of points: the key when both sides have
// the same, else "base-dataplane→new-dataplane/rest", e.g.
// "nftables→iptables-nft/20000/last".
func PointLabel(base, new Key) string {
	if base == new {
		return base.String()
	}
	return base.Dataplane + "→" + new.String()
}

// keyOf returns the key of a point or fairness record.
func keyOf(r results.Record) (Key, bool) {
	switch {
	case r.Type == results.TypePoint && r.Point != nil:
		return Key{Dataplane: r.Point.Dataplane, Services: r.Point.Services, Position: r.Point.Position}, true
	case r.Type == results.TypeFairness && r.Fairness != nil:
		return Key{Dataplane: r.Fairness.Dataplane, Service: r.Fairness.Service}, true
	}
	return Key{}, false
}

// compareKeys orders keys as reports do: dataplane, position, services,
// service.
func compareKeys(a, b Key) int {
	if c := dataplane.Compare(a.Dataplane, b.Dataplane); c != 0 {
		return c
	}
	if c := metric.ComparePositions(a.Position, b.Position); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Services, b.Services); c != 0 {
		return c
	}
	return cmp.Compare(a.Service, b.Service)
}

// samples are one run's per-repetition values, by point and metric.
type samples struct {
	keys   []Key // sorted by compareKeys
	values map[Key]map[string][]float64
}

// collect gathers every metric's measured values per point, in record
// order. A point record feeds SweepMetrics, a fairness record
// FairnessMetrics. A OncePerPoint metric keeps distinct values only.
func collect(records []results.Record) samples {
	s := samples{values: map[Key]map[string][]float64{}}
	for _, r := range records {
		k, ok := keyOf(r)
		if !ok {
			continue
		}
		if s.values[k] == nil {
			s.values[k] = map[string][]float64{}
			s.keys = append(s.keys, k)
		}
		for _, m := range metricsOf(r) {
			v, ok := m.value(r)
			if ok && !(m.OncePerPoint && slices.Contains(s.values[k][m.Name], v)) {
				s.values[k][m.Name] = append(s.values[k][m.Name], v)
			}
		}
	}
	slices.SortFunc(s.keys, compareKeys)
	return s
}

// metricsOf returns the metrics a record carries.
func metricsOf(r results.Record) []Metric {
	if r.Type == results.TypeFairness {
		return FairnessMetrics
	}
	return SweepMetrics
}

// dataplanes lists the sample set's dataplanes in report order.
func (s samples) dataplanes() []string {
	var out []string
	for _, k := range s.keys {
		if !slices.Contains(out, k.Dataplane) {
			out = append(out, k.Dataplane)
		}
	}
	return out
}
