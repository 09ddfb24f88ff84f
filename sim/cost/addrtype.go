package cost

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// AddrTypeCost is what a rule's addrtype match adds to a first packet on
// the calibration's machine, beyond a plain rule's walk: the match looks
// the address up in the routing tables (inet_dev_addr_type), where a
// plain rule compares header fields. kube-proxy writes one for every
// NodePort of a Service without endpoints ("-m addrtype --dst-type LOCAL
// ... -j REJECT" in the filter table's KUBE-EXTERNAL-SERVICES), which
// every new forwarded connection walks: results/plan-mix-check/addrtype
// measured 2,222 of them as 3.2× the first-packet p50 of the same walk
// without. Timed by the sweep's addrtype probes (sweep.addrTypeProbe): a
// walk probe with Rules such rules added, against the walk probe alone.
type AddrTypeCost struct {
	// Services is the walk probe's size the rules were added to, Rules how
	// many were added (each walked by every first packet of the probe),
	// Positions the probe positions timed (last, uniform).
	Services  int      `json:"services"`
	Rules     int      `json:"rules"`
	Positions []string `json:"positions"`
	// PerMatchUs is an addrtype match's cost beyond a plain rule's (µs):
	// the probes' p50 difference over Rules, less the calibrated cost per
	// rule walked, the mean over Positions (the rules are walked wherever
	// the service is: each position is one more measurement of them); its
	// interval is the differences' over the probes' repetitions.
	PerMatchUs  Estimate `json:"per_match_us"`
	Repetitions int      `json:"repetitions"`
}

// addrTypeCost is dataplane's AddrTypeCost from a run's addrtype probes
// and walk probes (pairs of the same size and position; the smallest size
// with a pair), less plainUs a rule; nil without such a pair.
func addrTypeCost(probes, walks []results.Point, dataplane string, plainUs float64) *AddrTypeCost {
	bySize := map[int][][2]results.Point{}
	for _, p := range probes {
		if p.Dataplane != dataplane || p.P50us <= 0 || p.Extra[results.ExtraAddrTypeRules] < 1 {
			continue
		}
		if w, ok := probeAt(walks, dataplane, p.Services, p.Position); ok {
			bySize[p.Services] = append(bySize[p.Services], [2]results.Point{p, w})
		}
	}
	if len(bySize) == 0 {
		return nil
	}
	return newAddrTypeCost(bySize[slices.Min(slices.Collect(maps.Keys(bySize)))], plainUs)
}

// probeAt is the walk probe of dataplane at services and position.
func probeAt(walks []results.Point, dataplane string, services int, position string) (results.Point, bool) {
	for _, w := range walks {
		if w.Dataplane == dataplane && w.Services == services && w.Position == position && w.P50us > 0 {
			return w, true
		}
	}
	return results.Point{}, false
}

// newAddrTypeCost prices an addrtype match from pairs of an addrtype probe
// (a walk probe plus rules) and its walk probe: the mean over the pairs of
// the p50 difference per rule (probeDifference).
func newAddrTypeCost(pairs [][2]results.Point, plainUs float64) *AddrTypeCost {
	d := probeDifference(pairs, func(p results.Point) float64 { return p.Extra[results.ExtraAddrTypeRules] })
	per := d.per
	per.Value -= plainUs
	per.Lo, per.Hi = per.Lo-plainUs, per.Hi-plainUs
	return &AddrTypeCost{Services: pairs[0][0].Services, Rules: int(pairs[0][0].Extra[results.ExtraAddrTypeRules]), Positions: d.positions,
		PerMatchUs: per, Repetitions: d.repetitions}
}

// probeDifference is what a probe adds to its walk probe per unit (units
// of the probe: rules, steps), the mean over pairs of a probe and its walk
// probe (one per position). Each difference is of two medians of n
// repetitions, whose variance is about π/2 × (sd² + sd²) ÷ n (a median's is
// about π/2 the mean's); the interval is Student's t over the pairs'
// pooled degrees of freedom, none when a pair has one repetition.
func probeDifference(pairs [][2]results.Point, units func(results.Point) float64) probeDiff {
	d := probeDiff{repetitions: math.MaxInt}
	var sum, variance float64
	dof := 0
	for _, pr := range pairs {
		probe, walk := pr[0], pr[1]
		u := units(probe)
		n := min(probe.Repetitions, walk.Repetitions)
		sdP, sdW := probe.Extra[results.ExtraP50SD], walk.Extra[results.ExtraP50SD]
		sum += (probe.P50us - walk.P50us) / u
		variance += (sdP*sdP + sdW*sdW) * math.Pi / 2 / float64(max(n, 1)) / (u * u)
		dof += n - 1
		d.repetitions = min(d.repetitions, n)
		d.positions = append(d.positions, probe.Position)
	}
	k := float64(len(pairs))
	d.per = exact(sum / k)
	if d.repetitions < 2 {
		d.per.NoInterval = true
	} else {
		half := tQuantile(dof) * math.Sqrt(variance/(k*k))
		d.per.Lo, d.per.Hi = d.per.Value-half, d.per.Value+half
	}
	return d
}

// probeDiff is probeDifference's result: the difference per unit, the
// positions it is over and the fewest repetitions of a pair.
type probeDiff struct {
	per         Estimate
	positions   []string
	repetitions int
}

// AddrTypesWarnAt is the addrtype matches a first packet evaluates from
// which plan warns when the calibration did not time one: 100 of them at
// the reference VM's 64-131 ns (results/plan-addrtype) add 6-13 µs, a
// tenth or more of a first packet's p50 on a small cluster (20-40 µs).
const AddrTypesWarnAt = 100

// addrTypeSurcharge is what matches addrtype matches add to a first
// packet (µs), with a warning when the calibration did not time them.
func (dm *DataplaneModel) addrTypeSurcharge(matches float64) (Estimate, string) {
	if matches < 1 || dm.Lookup != LinearWalk {
		return Estimate{}, ""
	}
	if dm.AddrType == nil {
		if matches < AddrTypesWarnAt {
			return Estimate{}, ""
		}
		return Estimate{}, fmt.Sprintf("%s: a first packet walks %.0f addrtype rules (kube-proxy's REJECT of a NodePort without endpoints), each a routing lookup many times a plain rule's cost; the calibration did not time one (sweep.addrTypeProbe, svclab plan calibrate), so they are priced as plain rules and the first-packet latency is underestimated", dm.Dataplane, matches)
	}
	return dm.AddrType.PerMatchUs.Scale(matches), ""
}

// withAddrTypes is c with the surcharge of a walk's addrtype matches
// at position (none without a traced walk), warning through warn, and
// that surcharge (nil when none).
func (dm *DataplaneModel) withAddrTypes(c CostPrediction, q Query, position string, warn func(string)) (CostPrediction, *Estimate) {
	if q.Composition == nil || q.Composition.Walk == nil {
		return c, nil
	}
	s, w := dm.addrTypeSurcharge(q.Composition.Walk.addrTypes(position))
	if w != "" {
		warn(w)
	}
	if s == (Estimate{}) {
		return c, nil
	}
	c.Total = c.Total.Plus(s).NonNegative()
	c.Added = c.Added.Plus(s).NonNegative()
	return c, &s
}
