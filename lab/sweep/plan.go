package sweep

import (
	"math/rand/v2"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// planPoint is one (dataplane, service count) a sweep measures; a walk
// probe's (sweep.walkProbe) loads the probe instead of the full ruleset; a
// sync probe's (sweep.syncProbe) times the full ruleset's loads alone; a
// lookup probe's (sweep.lookupProbe) is a sync probe loaded once, its
// syncs not timed, that probes the uniform position; an addrtype probe's
// (sweep.addrTypeProbe) is a walk probe with addrTypeRules addrtype rules;
// a recent probe's (sweep.recentProbe) the smallest walk probe with
// recentTables xt_recent lists.
type planPoint struct {
	dataplane     string
	services      int
	walkProbe     bool
	syncProbe     bool
	lookupProbe   bool
	addrTypeRules int
	recentTables  int
}

// sweepPlan lists the points, skipping counts above a dataplane's cap.
func sweepPlan(s *scenario.Sweep) []planPoint {
	var out []planPoint
	for _, n := range s.Services {
		for _, dp := range s.Dataplanes {
			if limit, ok := s.MaxServices[dp]; ok && n > limit {
				continue
			}
			out = append(out, planPoint{dataplane: dp, services: n})
		}
	}
	for _, n := range s.WalkProbe {
		for _, dp := range s.Dataplanes {
			if info, ok := dataplane.Lookup(dp); ok && info.Lookup == dataplane.LinearWalk {
				out = append(out, planPoint{dataplane: dp, services: n, walkProbe: true})
			}
		}
	}
	for _, n := range s.AddrTypeProbe {
		for _, dp := range s.Dataplanes {
			if info, ok := dataplane.Lookup(dp); ok && info.Lookup == dataplane.LinearWalk {
				out = append(out, planPoint{dataplane: dp, services: n, walkProbe: true, addrTypeRules: n})
			}
		}
	}
	if s.RecentProbe > 0 && len(s.WalkProbe) > 0 {
		for _, dp := range s.Dataplanes {
			if info, ok := dataplane.Lookup(dp); ok && info.Lookup == dataplane.LinearWalk {
				out = append(out, planPoint{dataplane: dp, services: slices.Min(s.WalkProbe), walkProbe: true, recentTables: s.RecentProbe})
			}
		}
	}
	for _, n := range s.SyncProbe {
		for _, dp := range s.Dataplanes {
			if syncProbed(s, dp, n) {
				out = append(out, planPoint{dataplane: dp, services: n, syncProbe: true})
			}
		}
	}
	for _, n := range s.LookupProbe {
		for _, dp := range s.Dataplanes {
			if lookupProbed(s, dp, n) {
				out = append(out, planPoint{dataplane: dp, services: n, syncProbe: true, lookupProbe: true})
			}
		}
	}
	return out
}

// lookupProbed says whether dataplane dp loads a lookup probe of n
// services: one that looks services up in a map, not above its cap, in a
// sweep of the uniform position, and not at a size it sync-probes (whose
// probe measures the lookup too).
func lookupProbed(s *scenario.Sweep, dp string, n int) bool {
	if !looksUpUniform(s, dp) {
		return false
	}
	if limit, ok := s.MaxServices[dp]; ok && n > limit {
		return false
	}
	return !slices.Contains(s.SyncProbe, n) || !syncProbed(s, dp, n)
}

// syncProbed says whether dataplane dp times a sync probe of n services:
// not above its cap (sweep.maxServices) or its timed syncs' limit
// (sweep.syncLimit).
func syncProbed(s *scenario.Sweep, dp string, n int) bool {
	if limit, ok := s.MaxServices[dp]; ok && n > limit {
		return false
	}
	limit, ok := s.SyncLimit[dp]
	return !ok || n <= limit
}

// shuffled returns a seeded permutation of 0..n-1, so repetitions visit the
// points in a different order and machine drift does not pass for scaling.
func shuffled(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x5ee9))
	return rng.Perm(n)
}

// looksUpUniform says whether a sync probe of dataplane dp also measures
// connections to uniformly random services (a lookup probe): for a
// dataplane that finds a service in a map (dataplane.MapLookup) when the
// sweep probes the uniform position. Such a lookup walks nothing, but the
// larger the map, the more often a random service's element misses the
// caches, and a median of loads at one size moves with how many of them
// met a slow vCPU (nftables' uniform p50 in
// results/plan-holdout/native-dump: 20.5 µs at 5,000 Services, 25.3 at
// 50,000), so the probes measure the lookup at sizes the traffic points do
// not reach, as the walk probes measure a rule walk's. The probe's traffic
// comes after its syncs are timed.
func looksUpUniform(s *scenario.Sweep, dp string) bool {
	info, ok := dataplane.Lookup(dp)
	return ok && info.Lookup == dataplane.MapLookup && slices.Contains(s.Positions, scenario.PositionUniform)
}
