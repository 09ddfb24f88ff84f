package cost

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// CalibrationSweep is the interleaved sweep `svclab plan calibrate` runs on
// the user's node: service counts that cross the CPU's L2 cache with
// kube-proxy's rules (a KUBE-SERVICES rule is about 0.5 KiB in the kernel,
// so 1,000 services are about 0.5 MiB and 5,000 about 2.5 MiB), the last
// and the uniform positions, and full and incremental syncs at every point.
type CalibrationSweep struct {
	Services   []int
	Dataplanes []string
	// WalkProbe are the walk probes' sizes (sweep.walkProbe), measured for
	// the rule-walk dataplanes; empty: none.
	WalkProbe []int
	// WalkProbeReload reloads them in every repetition (Probes.ReloadWalk).
	WalkProbeReload bool
	// AddrTypeProbe are the addrtype probes' sizes (sweep.addrTypeProbe),
	// each a walk probe's; empty: none.
	AddrTypeProbe []int
	// RecentProbe is the recent probe's xt_recent lists
	// (sweep.recentProbe), timed on the smallest walk probe; 0: none.
	RecentProbe int
	// SyncProbe are the sync probes' sizes (sweep.syncProbe); empty: none.
	SyncProbe []int
	// LookupProbe are the lookup probes' sizes (sweep.lookupProbe),
	// measured for the map-lookup dataplanes; empty: none.
	LookupProbe []int
	// Batch is how many endpoint changes the batched partial sync carries
	// (sweep.incrementalBatch), for the programming latency's per-change
	// cost; 0: none.
	Batch int
	// BatchKind is what the batch's changes are (sweep.incrementalBatchKind:
	// scenario.BatchEndpoints, the default, or scenario.BatchServices).
	BatchKind   string
	Repetitions int
	Connections int
	// Budget, when set, is the time the whole calibration may take, rules
	// loading included: the runner starts no repetition beyond the first
	// two that would end after it, so Repetitions is then an upper bound.
	// Zero (repetitions given) runs every repetition.
	Budget time.Duration
}

// Defaults of a calibration sweep.
const (
	// DefaultCalibrationBatch is the changes a calibration's batched
	// partial sync carries: about what one sync carries at 100 changes a
	// second with kube-proxy's 1 s --min-sync-period (its service storm,
	// results/service-storm-quiet-kube-proxy-1.37, carried 120-151).
	DefaultCalibrationBatch = 100
	// DefaultCalibrationDuration is the default Budget: with svclab plan's
	// few seconds after it, calibrate-then-plan stays under 5 minutes
	// (issue 23) even when loading the rules is slow on a busy node.
	DefaultCalibrationDuration = 3 * time.Minute
	// calibrationRepsPerMinute: one repetition of every point takes about
	// 13 s on a quiet 2-CPU node once the rules are loaded; the loads take
	// about the first minute. The count it gives is an upper bound the
	// Budget cuts.
	calibrationRepsPerMinute = 4
	minCalibrationReps       = 3
	maxCalibrationReps       = 60
)

// DefaultCalibrationServices are the calibration sweep's service counts.
var DefaultCalibrationServices = []int{1, 1000, 2500, 5000}

// DefaultCalibrationWalkProbe are the walk probes' sizes: from the two
// largest calibrated sizes (plan checks the probe's growth between them
// against the sweep's) to 80,000 services' KUBE-SERVICES rules (about 38 MB of
// rules in the kernel, past any CPU's caches), so plan reads a rule walk's
// growth up to 16 times the calibration from measurements. They load in
// seconds (a few chains; the full ruleset of 80,000 services would take
// minutes with iptables-nft).
var DefaultCalibrationWalkProbe = []int{2500, 5000, 10000, 20000, 40000, 80000}

// DefaultCalibrationAddrTypeProbe is the default addrtype probe: the
// smallest walk probe (2,500 services on the default sizes) with as many
// addrtype rules, which add about 200 µs to its 30 µs walk on the
// reference VM (an addrtype rule costs about 80 ns there, a plain rule 5:
// results/plan-mix-check/addrtype), loaded in well under a second.
func DefaultCalibrationAddrTypeProbe(walkProbe []int) []int {
	if len(walkProbe) == 0 {
		return nil
	}
	return []int{slices.Min(walkProbe)}
}

// DefaultCalibrationRecentProbe is svclab plan calibrate's default recent
// probe: 8,000 xt_recent lists ahead of the one its rules check, about a
// cluster's ClientIP-affinity endpoints at 10,000 Services
// (sim/objects/testdata/cluster-500.yaml at 20×: 7,518), a list the
// kernel's walk passes beyond the CPU's L2 cache (a list is about a cache
// line of a few-KiB allocation each). Creating them walks the list once
// per list, seconds for each load of the probe.
const DefaultCalibrationRecentProbe = 8000

// DefaultCalibrationSyncProbe are the sync probes' sizes: the full
// ruleset of 2 and 4 times the largest calibrated size, loaded and timed
// alone, so that plan fits a full sync that grows faster than a line past
// 5,000 services (libiptc's restore) on measurements. They take seconds
// (iptables-legacy: about 0.6 s and 1.3 s per load on the reference
// machine; nftables about 0.7 and 1.4 s); iptables-nft gets none
// (calibrationSyncLimited).
var DefaultCalibrationSyncProbe = []int{10000, 20000}

// DefaultCalibrationLookupProbe are the lookup probes' sizes: the full
// ruleset of 2 to 16 times the largest calibrated size, loaded once for
// each dataplane that looks services up in a map (at the sizes it does
// not sync-probe, whose probes measure the lookup too), whose connections to
// uniformly random services then measure, in every repetition, how the
// lookup grows as the map outgrows the caches: plan fits the uniform p50
// on them and the largest size's points instead of extrapolating a line
// in ln N from 1 to 5,000 Services 10 times (nftables' 50,000 in
// results/plan-holdout/native-dump: 25.3 µs against 21.9 [20.4, 23.4]).
// nftables loads them in about 17 s once (1.1 s for 10,000 on the
// reference VM, 4.5 s for 40,000).
var DefaultCalibrationLookupProbe = []int{10000, 20000, 40000, 80000}

// Probes are the probe sizes a calibration sweep measures, each nil for
// the default sizes and empty for none.
type Probes struct {
	Walk, Sync, Lookup []int
	// AddrType are the addrtype probes' sizes, each a walk probe's; nil is
	// the smallest walk probe's (DefaultCalibrationAddrTypeProbe).
	AddrType []int
	// Recent is the recent probe's xt_recent lists, 0 for none (svclab
	// plan calibrate's default is DefaultCalibrationRecentProbe).
	Recent int
	// ReloadWalk reloads the walk probes in every repetition
	// (sweep.walkProbeReload), so that their medians sample the spread of
	// kernel states one load leaves (±25-35% for a long rule walk on the
	// reference VM); the default loads each once.
	ReloadWalk bool
}

// DefaultCalibrationDataplanes are the host dataplanes calibrate measures
// (IPVS needs a user-mode-linux guest on many hosts: calibrate it with
// --dataplane).
var DefaultCalibrationDataplanes = []string{string(dataplane.IPTablesLegacy), string(dataplane.IPTablesNFT), string(dataplane.NFTables)}

// NewCalibrationSweep sizes a sweep for a duration: the duration is its
// Budget, and the repetitions an upper bound that a quiet node fills (at
// least 3). Given repetitions (reps > 0) run all, with no budget.
func NewCalibrationSweep(duration time.Duration, reps int, dataplanes []string, services []int, probes Probes) (CalibrationSweep, error) {
	if duration <= 0 && reps <= 0 {
		return CalibrationSweep{}, fmt.Errorf("calibration duration %v: want > 0 (or give the repetitions)", duration)
	}
	var budget time.Duration
	if reps <= 0 {
		reps = int((duration.Minutes()-1)*calibrationRepsPerMinute + 0.5)
		budget = duration
	}
	reps = min(max(reps, minCalibrationReps), maxCalibrationReps)
	if len(dataplanes) == 0 {
		dataplanes = DefaultCalibrationDataplanes
	}
	for _, d := range dataplanes {
		if _, err := LookupOf(d); err != nil {
			return CalibrationSweep{}, fmt.Errorf("calibration dataplane: %w", err)
		}
	}
	if len(services) == 0 {
		services = DefaultCalibrationServices
	}
	walkProbe, syncProbe := probes.Walk, probes.Sync
	if walkProbe == nil {
		walkProbe = DefaultCalibrationWalkProbe
	}
	if syncProbe == nil {
		syncProbe = DefaultCalibrationSyncProbe
	}
	lookupProbe := probes.Lookup
	if lookupProbe == nil {
		lookupProbe = DefaultCalibrationLookupProbe
	}
	if !slices.ContainsFunc(dataplanes, func(d string) bool { l, _ := LookupOf(d); return l == LinearWalk }) {
		walkProbe = nil // nothing walks rules to probe
	}
	addrTypeProbe := probes.AddrType
	if addrTypeProbe == nil {
		addrTypeProbe = DefaultCalibrationAddrTypeProbe(walkProbe)
	}
	for _, n := range addrTypeProbe {
		if !slices.Contains(walkProbe, n) {
			return CalibrationSweep{}, fmt.Errorf("addrtype probe of %d services: not a walk probe size (%s): it is timed against the walk probe of its size", n, intList(walkProbe))
		}
	}
	if !slices.ContainsFunc(dataplanes, func(d string) bool { l, _ := LookupOf(d); return l == MapLookup }) {
		lookupProbe = nil // nothing looks services up in a map
	}
	recentProbe := probes.Recent
	switch {
	case recentProbe < 0 || recentProbe > scenario.MaxRecentProbe:
		return CalibrationSweep{}, fmt.Errorf("recent probe of %d xt_recent lists: want 0 (none) to %d", recentProbe, scenario.MaxRecentProbe)
	case len(walkProbe) == 0:
		recentProbe = 0 // timed against a walk probe
	}
	return CalibrationSweep{Services: services, Dataplanes: dataplanes, WalkProbe: walkProbe, WalkProbeReload: probes.ReloadWalk, AddrTypeProbe: addrTypeProbe, RecentProbe: recentProbe, SyncProbe: syncProbe, LookupProbe: lookupProbe,
		Batch: DefaultCalibrationBatch, Repetitions: reps, Connections: 1000, Budget: budget}, nil
}

// Scenario is the sweep as a scenario file (svclab run reads it; the
// calibration directory keeps it beside the results).
func (c CalibrationSweep) Scenario() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: plan-calibrate\n")
	fmt.Fprintf(&b, "description: |\n  svclab plan calibrate: an interleaved calibration sweep of this node\n")
	fmt.Fprintf(&b, "  (up to %d repetitions visit every point in a fresh random order).\n", c.Repetitions)
	fmt.Fprintf(&b, "sweep:\n  services: %s\n  dataplanes: [%s]\n", intList(c.Services), strings.Join(c.Dataplanes, ", "))
	fmt.Fprintf(&b, "  positions: [%s, %s]\n  endpointsPerService: 1\n", PositionLast, PositionUniform)
	// Every repetition reloads the rules, so each sync time is a median of
	// repetitions, not one load (a lab's first restore can pay one-off
	// costs: 0.61 s for one service's iptables-legacy rules once, against
	// 10 ms, which tipped the form of the whole sync curve).
	fmt.Fprintf(&b, "  connections: %d\n  warmup: 100\n  repetitions: %d\n  throughputConnections: 1000\n  seed: 1\n  syncEachRepetition: true\n",
		c.Connections, c.Repetitions)
	if c.Batch > 0 {
		fmt.Fprintf(&b, "  incrementalBatch: %d\n", c.Batch)
	}
	if c.Batch > 0 && c.BatchKind != "" {
		fmt.Fprintf(&b, "  incrementalBatchKind: %s\n", c.BatchKind)
	}
	if len(c.WalkProbe) > 0 {
		// By default the probes are loaded once: reloading them every
		// repetition (up to 80,000 services' KUBE-SERVICES rules, 8 s for
		// iptables-legacy's alone) took the default 3 minutes down to 2
		// repetitions.
		fmt.Fprintf(&b, "  walkProbe: %s\n  walkProbeReload: %t\n", intList(c.WalkProbe), c.WalkProbeReload)
	}
	if len(c.AddrTypeProbe) > 0 {
		fmt.Fprintf(&b, "  addrTypeProbe: %s\n", intList(c.AddrTypeProbe))
	}
	if c.RecentProbe > 0 {
		fmt.Fprintf(&b, "  recentProbe: %d\n", c.RecentProbe)
	}
	if len(c.SyncProbe) > 0 {
		fmt.Fprintf(&b, "  syncProbe: %s\n", intList(c.SyncProbe))
		var limits []string
		for _, d := range calibrationSyncLimited {
			if slices.Contains(c.Dataplanes, d) {
				limits = append(limits, fmt.Sprintf("%s: %d", d, slices.Max(c.Services)))
			}
		}
		if len(limits) > 0 {
			fmt.Fprintf(&b, "  syncLimit: {%s}\n", strings.Join(limits, ", "))
		}
	}
	if len(c.LookupProbe) > 0 {
		// Loaded once: reloading nftables' 80,000 Services every
		// repetition would cost the 3-minute default its repetitions.
		fmt.Fprintf(&b, "  lookupProbe: %s\n", intList(c.LookupProbe))
	}
	return []byte(b.String())
}

// calibrationSyncLimited are the dataplanes whose syncs a calibration
// times up to its largest service count only, without sync probes (each
// probe reloads every repetition, which the 3-minute default pays for in
// repetitions): iptables-nft, whose restore --noflush took 2.9 s for 5,000
// services and 16 s for 10,000 on the reference machine (over 45 minutes
// for 50,000). nftables' probes cost a few seconds a repetition (its full
// sync of 20,000 Services about 1.4 s here) and give its incremental sync,
// whose power law fitted from 1,000 to 5,000 Services (tens of ms that an
// nft process's start-up dominates) extrapolated 10× to an interval 600
// times wide (the cluster-500 mix at 20×: 0.192 s [0.0677, 41.8],
// results/plan-families/nft-sync-probes), points to 20,000.
var calibrationSyncLimited = []string{string(dataplane.IPTablesNFT)}

func intList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
