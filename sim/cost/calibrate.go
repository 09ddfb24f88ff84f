package cost

import (
	"fmt"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// FitRange chooses which calibration points the per-connection lines use.
type FitRange string

// The fit ranges.
const (
	// FitAll uses every point with N ≤ MaxN.
	FitAll FitRange = "all"
	// FitUpperHalf uses only the points with N at least half the largest
	// calibrated N: the regime closest to large clusters, when the curve
	// bends (e.g. once the ruleset outgrows the CPU's caches).
	FitUpperHalf FitRange = "upper-half"
)

// Defaults of Options.
const (
	DefaultMinR2        = 0.95
	DefaultBeyondFactor = 2.0
)

// Options tune a calibration.
type Options struct {
	// MaxN calibrates on points with at most MaxN services; 0 means all.
	MaxN int `json:"max_n,omitempty"`
	// Range selects the points of the latency and CPU lines (default FitAll).
	Range FitRange `json:"range"`
	// MinR2 is the R² below which a line is a poor fit (default 0.95).
	MinR2 float64 `json:"min_r2"`
	// BeyondFactor: a prediction more than this many times the largest
	// calibrated size is flagged as beyond calibration (default 2).
	BeyondFactor float64 `json:"beyond_factor"`
}

func (o Options) withDefaults() Options {
	if o.Range == "" {
		o.Range = FitAll
	}
	if o.MinR2 == 0 {
		o.MinR2 = DefaultMinR2
	}
	if o.BeyondFactor == 0 {
		o.BeyondFactor = DefaultBeyondFactor
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.MaxN < 0:
		return fmt.Errorf("calibration MaxN %d: want ≥ 0", o.MaxN)
	case o.Range != FitAll && o.Range != FitUpperHalf:
		return fmt.Errorf("calibration range %q: want %s or %s", o.Range, FitAll, FitUpperHalf)
	case o.MinR2 < 0 || o.MinR2 > 1:
		return fmt.Errorf("calibration MinR2 %v: want 0..1", o.MinR2)
	case o.BeyondFactor < 1:
		return fmt.Errorf("calibration BeyondFactor %v: want ≥ 1", o.BeyondFactor)
	}
	return nil
}

// Model is a calibrated cost model for every dataplane the sweep measured.
type Model struct {
	Source     Source           `json:"source"`
	Options    Options          `json:"options"`
	Dataplanes []DataplaneModel `json:"dataplanes"`
	Warnings   []string         `json:"warnings,omitempty"`
	// Across is set when the plan is for another machine than the
	// calibration's (CheckMachine): the predictions extrapolate across
	// machines.
	Across *Mismatch `json:"across_machines,omitempty"`
}

// DataplaneModel is one dataplane's calibration.
type DataplaneModel struct {
	Dataplane string `json:"dataplane"`
	Lookup    Lookup `json:"lookup"`
	Mode      string `json:"mode"` // the kube-proxy payload it loads
	// MaxServices is the largest N of the latency calibration.
	MaxServices int `json:"max_services"`
	// Repetitions is the fewest repetitions of a calibrated size's
	// latency points (0: unknown, a summary without its records).
	Repetitions int `json:"repetitions,omitempty"`
	// P50 is required; the other curves are nil when the sweep did not
	// measure enough points.
	P50 CostCurve  `json:"p50"`
	P99 *CostCurve `json:"p99,omitempty"`
	// P99Tail is the p99/p50 ratio of the fixed positions' points (a
	// LinearWalk's p99 at last or middle is its p50 times it; P99 is then
	// kept for its fit and warnings only).
	P99Tail *TailRatio `json:"p99_tail,omitempty"`
	// P99Uniform is the p99 of connections to uniformly random services
	// (the sweep's uniform position) against their mean rules walked: the
	// p99 of a whole cluster's mix, which a fixed position's p99 is not.
	P99Uniform *CostCurve `json:"p99_uniform,omitempty"`
	// P50Uniform is the p50 of connections to uniformly random services
	// alone (P50 pools every position): a map lookup's constant differs
	// between one hot service and many.
	P50Uniform *CostCurve `json:"p50_uniform,omitempty"`
	// KernelMem is the kernel memory (MB) against the ruleset's rules.
	KernelMem       *MemLine   `json:"kernel_mem,omitempty"`
	CPU             *CostCurve `json:"cpu,omitempty"`
	SyncFull        *SyncCurve `json:"sync_full,omitempty"`
	SyncIncremental *SyncCurve `json:"sync_incremental,omitempty"`
	// SyncPerChange is what each further change adds to a partial sync
	// that carries several (seconds, from sweep.incrementalBatch: the
	// batch's sync less the one change's, over the further changes).
	SyncPerChange *SyncCurve `json:"sync_per_change,omitempty"`
	// SyncPerChangeKind is what SyncPerChange's changes were: "" endpoint
	// changes, ChurnServices Service creations (sweep.incrementalBatchKind).
	SyncPerChangeKind string `json:"sync_per_change_kind,omitempty"`
	// Walk are the rule walk's probes (LinearWalk, when the sweep had
	// sweep.walkProbe): the p50 beyond the calibrated sizes grows as they do.
	Walk []WalkCurve `json:"walk_probe,omitempty"`
	// AddrType is what an addrtype match adds to a first packet (LinearWalk,
	// when the sweep had sweep.addrTypeProbe): plan adds it for each such
	// match a cluster's traced walk counts.
	AddrType *AddrTypeCost `json:"addrtype,omitempty"`
	// Recent is what a step of xt_recent's walk of its lists costs
	// (LinearWalk, when the sweep had sweep.recentProbe): plan adds it
	// for the steps a cluster's traced walk takes to its ClientIP-affinity
	// Services' lists.
	Recent   *RecentCost `json:"recent,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
}

// Calibrate loads a sweep run directory and calibrates the model on it.
func Calibrate(dir string, opts Options) (*Model, error) {
	run, err := LoadRun(dir)
	if err != nil {
		return nil, err
	}
	return CalibrateRun(run, opts)
}

// CalibrateDefault calibrates the model on the embedded default run.
func CalibrateDefault(opts Options) (*Model, error) {
	run, err := DefaultRun()
	if err != nil {
		return nil, err
	}
	return CalibrateRun(run, opts)
}

// CalibrateRun calibrates the model on a run's points. Dataplanes the model
// does not know, or whose p50 cannot be fitted, are left out with a
// warning; it fails when no dataplane is left.
func CalibrateRun(run *Run, opts Options) (*Model, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	m := &Model{Source: run.Source, Options: opts, Warnings: slices.Clone(run.Warnings)}
	if run.ChainListSwing != "" {
		m.Warnings = append(m.Warnings, run.ChainListSwing)
	}
	if run.Source.GuestKernel != "" {
		m.Warnings = append(m.Warnings, "calibrated in a user-mode-linux guest ("+run.Source.GuestKernel+
			"): its absolute latencies and CPU costs are the guest's, far slower than a host kernel's; compare dataplanes, not absolute numbers")
	}
	if run.Source.Engine == scenario.EngineKubeProxy {
		m.Warnings = append(m.Warnings, kubeProxyOrderWarning)
	}
	for _, name := range dataplanesOf(run.Points) {
		dm, err := calibrateDataplane(name, run, opts)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s left out of the model: %v", name, err))
			continue
		}
		if dm.Lookup == LinearWalk {
			dm.Walk = walkCurves(run.WalkProbes, name, calibrationPoints(run.Points, name, opts.MaxN))
			plain := dm.p50For(PositionLast).PerEvaluation().Value
			dm.AddrType = addrTypeCost(run.AddrTypeProbes, run.WalkProbes, name, plain)
			dm.Recent = recentCost(run.RecentProbes, run.WalkProbes, name, plain)
		}
		m.Dataplanes = append(m.Dataplanes, dm)
	}
	if len(m.Dataplanes) == 0 {
		return nil, fmt.Errorf("calibration %s: no dataplane could be calibrated (MaxN %d): %v", run.Source.Name, opts.MaxN, m.Warnings)
	}
	return m, nil
}

// kubeProxyOrderWarning: kube-proxy orders KUBE-SERVICES itself, so a
// kube-proxy-engine sweep's rule walks are at random places.
const kubeProxyOrderWarning = "rules written by kube-proxy itself, which orders KUBE-SERVICES in Go map order at every full sync: the sweep's position is not the target rule's, so the iptables dataplanes' first-packet latency and CPU mix positions (syncs, memory and map lookups are unaffected); calibrate the rule walk with --engine native"

// dataplanesOf lists the dataplanes of points in dataplane.Compare order.
func dataplanesOf(points []results.Point) []string {
	var names []string
	for _, p := range points {
		if !slices.Contains(names, p.Dataplane) {
			names = append(names, p.Dataplane)
		}
	}
	slices.SortFunc(names, dataplane.Compare)
	return names
}

// Dataplane returns the calibration of one dataplane.
func (m *Model) Dataplane(name string) (*DataplaneModel, bool) {
	for i := range m.Dataplanes {
		if m.Dataplanes[i].Dataplane == name {
			return &m.Dataplanes[i], true
		}
	}
	return nil, false
}
