package ab

import (
	"cmp"
	"slices"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// Point names one sweep point: a dataplane at a service count and target
// position.
type Point struct {
	Dataplane string `json:"dataplane"`
	Services  int    `json:"services"`
	Position  string `json:"position"`
}

func pointOf(p results.Point) Point {
	return Point{Dataplane: p.Dataplane, Services: p.Services, Position: p.Position}
}

func comparePoints(a, b Point) int {
	return cmp.Or(cmp.Compare(a.Dataplane, b.Dataplane), cmp.Compare(a.Services, b.Services),
		metric.ComparePositions(a.Position, b.Position))
}

// side is one side's point records by point and repetition.
type side map[Point]map[int]results.Point

func sideOf(records []results.Record) side {
	s := side{}
	for _, r := range records {
		if r.Type != results.TypePoint || r.Point == nil {
			continue
		}
		k := pointOf(*r.Point)
		if s[k] == nil {
			s[k] = map[int]results.Point{}
		}
		s[k][r.Point.Repetition] = *r.Point
	}
	return s
}

// pairs returns m's values at point k for the repetitions both sides
// measured it in, in repetition order.
func pairs(base, new side, k Point, m metric.Metric) (b, n []float64) {
	var reps []int
	for rep := range base[k] {
		if _, ok := new[k][rep]; ok {
			reps = append(reps, rep)
		}
	}
	slices.Sort(reps)
	for _, rep := range reps {
		x, y := m.Point(base[k][rep]), m.Point(new[k][rep])
		if m.Measured(x) && m.Measured(y) {
			b, n = append(b, x), append(n, y)
		}
	}
	return b, n
}

// commonPoints are the points both sides measured, sorted.
func commonPoints(base, new side) []Point {
	var out []Point
	for k := range base {
		if _, ok := new[k]; ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, comparePoints)
	return out
}
