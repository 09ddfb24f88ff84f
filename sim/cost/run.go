package cost

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// The default calibration: byte copies of the recorded run
// results/sweep-full-default's summary.json, meta.json and results.jsonl
// (checked by a test), recorded on DefaultMachineLabel. Its results.jsonl
// gives the loads behind the medians, whose scatter widens the sync
// intervals (LoadSpread), as a calibration directory's does.
//
//go:generate cp ../../results/sweep-full-default/summary.json calibration/default.json
//go:generate cp ../../results/sweep-full-default/meta.json calibration/default-meta.json
//go:generate cp ../../results/sweep-full-default/results.jsonl calibration/default-results.jsonl
var (
	//go:embed calibration/default.json
	defaultSummary []byte
	//go:embed calibration/default-meta.json
	defaultMeta []byte
	//go:embed calibration/default-results.jsonl
	defaultResults []byte
)

// DefaultSourceName names the embedded calibration in a Source.
const DefaultSourceName = "embedded default"

// DefaultRecordedRun is the recorded run the embedded calibration copies.
const DefaultRecordedRun = "results/sweep-full-default"

// DefaultMachineLabel is the machine type the embedded calibration was
// measured on (its meta.json names the CPU model).
const DefaultMachineLabel = "svclab's reference machine type: a 2-vCPU AMD EPYC (Zen 5) KVM guest, Debian 12, kernel 6.18"

// Source says what a calibration was measured on.
type Source struct {
	// Name is the run directory, or DefaultSourceName.
	Name     string `json:"name"`
	Run      string `json:"run,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	// ScenarioHash is meta.json's hash of the scenario (Run.WithScenario
	// checks a file against it).
	ScenarioHash string `json:"-"`
	Started      string `json:"started,omitempty"`
	Kernel       string `json:"kernel,omitempty"`
	GuestKernel  string `json:"guest_kernel,omitempty"`
	CPU          string `json:"cpu,omitempty"`
	CPUs         int    `json:"cpus,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	// Tools are the dataplane tools' versions; Engine and KubeProxyVersion
	// say whose rules were loaded (meta.json's).
	Tools            map[string]string `json:"tools,omitempty"`
	Engine           string            `json:"engine,omitempty"`
	KubeProxyVersion string            `json:"kube_proxy_version,omitempty"`
	// Machine is the machine it was measured on: meta.json's CPU, kernel
	// and tools, with the caches of machine.json (svclab plan calibrate).
	Machine Machine `json:"machine"`
}

// String is one line: where, which run, kernel and CPU.
func (s Source) String() string {
	parts := []string{s.Name}
	if s.Run != "" {
		parts = append(parts, fmt.Sprintf("run %s (%s, %s)", s.Run, s.Scenario, s.Started))
	}
	if s.Kernel != "" {
		parts = append(parts, "kernel "+s.Kernel)
	}
	if s.GuestKernel != "" {
		parts = append(parts, "user-mode-linux guest kernel "+s.GuestKernel)
	}
	if s.CPU != "" {
		cpu := fmt.Sprintf("CPU %s × %d", s.CPU, s.CPUs)
		if c := s.Machine.CacheText(); c != "" {
			cpu += " (" + c + ")"
		}
		parts = append(parts, cpu)
	}
	if s.Machine.Label != "" {
		parts = append(parts, "machine type: "+s.Machine.Label)
	}
	return strings.Join(parts, "; ")
}

// Run is a sweep's points (medians over repetitions) and where they were
// measured.
type Run struct {
	Source Source
	Points []results.Point
	// WalkProbes are the sweep's walk probes (sweep.walkProbe), if any.
	WalkProbes []results.Point
	// AddrTypeProbes are its addrtype probes (sweep.addrTypeProbe), if any.
	AddrTypeProbes []results.Point
	// RecentProbes are its recent probes (sweep.recentProbe), if any.
	RecentProbes []results.Point
	// SyncProbes are the sweep's sync probes (sweep.syncProbe), if any:
	// full syncs timed at sizes of their own, kept whatever Options.MaxN.
	SyncProbes []results.Point
	// PointLoads and SyncProbeLoads are the loads behind those medians,
	// from results.jsonl: one point per dataplane, size and repetition, and
	// every sync-probe repetition (none for a summary alone). How much a
	// load's sync time scatters widens the sync intervals (LoadSpread).
	PointLoads     []results.Point
	SyncProbeLoads []results.Point
	// PointRepetitions are every point record of results.jsonl, each
	// position's repetitions: a holdout's measured median has its own
	// interval from them.
	PointRepetitions []results.Point
	// ChainListWalk is the machine's chain-list walk (meta.json's, pooled
	// with the walks results.jsonl timed after it), when the sweep
	// measured it: the iptables-nft syncs are priced with it
	// (ChainListPrice).
	ChainListWalk []results.ChainListStep
	// ChainDumpWalk is the machine's chain dump walk (meta.json's), when
	// the sweep measured it: the nftables incremental syncs are priced
	// with it (ChainDumpPrice).
	ChainDumpWalk []results.ChainListStep
	// AnonymousSetWalk is the machine's anonymous-set walks (meta.json's),
	// when timed: nftables' full syncs are priced with it
	// (AnonymousSetPrice).
	AnonymousSetWalk []results.AnonymousSetStep
	// ChainListSwing is the warning that ChainListWalk's walks, timed at
	// the run's start and end, lie far apart ("" when they do not): a
	// warning of the model calibrated with them.
	ChainListSwing string
	Warnings       []string
	// Scenario is the scenario the run was made from, when given
	// (WithScenario): a sweep whose fillers a synthetic.mix shapes is
	// predicted for the services each point loaded.
	Scenario *scenario.Scenario
}

// DefaultRun returns the embedded default calibration run.
func DefaultRun() (*Run, error) {
	var s results.Summary
	if err := json.Unmarshal(defaultSummary, &s); err != nil {
		return nil, fmt.Errorf("embedded calibration default.json: %w", err)
	}
	var m results.Meta
	if err := json.Unmarshal(defaultMeta, &m); err != nil {
		return nil, fmt.Errorf("embedded calibration default-meta.json: %w", err)
	}
	r, err := newRun(DefaultSourceName, &s, &m)
	if err != nil {
		return nil, err
	}
	records, _, err := results.DecodeRecords(bytes.NewReader(defaultResults), "embedded calibration default-results.jsonl")
	if err != nil {
		return nil, err
	}
	r.addRecords(records)
	r.Source.Machine.Label = DefaultMachineLabel
	return r, nil
}

// LoadRun reads a sweep run directory: summary.json's points, or, when
// there is no summary.json (an interrupted run), results.jsonl aggregated
// with metric.Aggregate; and meta.json (or results.jsonl's meta record).
func LoadRun(dir string) (*Run, error) {
	var (
		s        *results.Summary
		warnings []string
		err      error
	)
	switch {
	case fileExists(filepath.Join(dir, results.SummaryFile)):
		s, err = results.ReadSummary(dir)
	case !fileExists(filepath.Join(dir, results.ResultsFile)):
		return nil, fmt.Errorf("calibration run %s: neither %s nor %s is there: is it a svclab sweep run directory?",
			dir, results.SummaryFile, results.ResultsFile)
	default:
		s, warnings, err = summaryFromRecords(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration run %s: %w", dir, err)
	}
	m, err := results.ReadMeta(dir)
	if err != nil {
		m = metaFromRecords(dir)
		if m == nil {
			warnings = append(warnings, fmt.Sprintf("%s has no meta.json: the calibration's kernel and CPU are unknown", dir))
		}
	}
	r, err := newRun(dir, s, m)
	if err != nil {
		return nil, err
	}
	// The walk probes are aggregated from the repetitions themselves (a
	// summary.json written before the probes' standard deviations were
	// recorded has the medians alone), and the loads are read from them.
	if records, _, err := results.ReadRecords(dir); err == nil {
		r.addRecords(records)
	}
	machine, ok, err := ReadMachine(dir)
	if err != nil {
		return nil, err
	}
	if ok {
		r.Source.Machine = machine
	}
	r.Warnings = append(warnings, r.Warnings...)
	return r, nil
}

// chainListSwingWarning is how far apart a run's chain-list walks may lie
// before plan says so: more than the ±35% it gives a priced walk.
const chainListSwingWarning = 1.5

// addRecords takes the walk probes, the loads and the repetitions from a
// run's results.jsonl records, and pools the chain-list walks timed after
// meta.json's with it (results.PoolChainListWalks).
func (r *Run) addRecords(records []results.Record) {
	if again := results.ChainListWalksOf(records); len(again) > 0 {
		walks := append([][]results.ChainListStep{r.ChainListWalk}, again...)
		r.ChainListWalk = results.PoolChainListWalks(walks...)
		if ratio, chains := results.ChainListSwing(walks...); ratio >= chainListSwingWarning {
			r.ChainListSwing = fmt.Sprintf("calibration %s: its chain-list walks, timed at the run's start and end, differed %.1f× at %d chains: "+
				"this machine's speed moved that much while the run was made, and a long iptables-nft-restore's moves with it; its syncs' intervals take in both walks", r.Source.Name, ratio, chains)
		}
	}
	if probes := metric.AggregateWalkProbes(records); probes != nil {
		r.WalkProbes = probes
	}
	if probes := metric.AggregateAddrTypeProbes(records); probes != nil {
		r.AddrTypeProbes = probes
	}
	if probes := metric.AggregateRecentProbes(records); probes != nil {
		r.RecentProbes = probes
	}
	r.PointLoads, r.SyncProbeLoads = loadsOf(records)
	r.PointRepetitions = results.SweepPoints(records)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// summaryFromRecords aggregates results.jsonl into a summary.
func summaryFromRecords(dir string) (*results.Summary, []string, error) {
	records, warnings, err := results.ReadRecords(dir)
	if err != nil {
		return nil, nil, err
	}
	points, _ := metric.Aggregate(records)
	s := &results.Summary{Schema: results.SchemaVersion, Kind: "sweep", Points: points, WalkProbes: metric.AggregateWalkProbes(records),
		SyncProbes: metric.AggregateSyncProbes(records), AddrTypeProbes: metric.AggregateAddrTypeProbes(records), RecentProbes: metric.AggregateRecentProbes(records)}
	if m := metaOf(records); m != nil {
		s.Run, s.Scenario, s.Kind = m.Run, m.Scenario, m.Kind
	}
	warnings = append(warnings, fmt.Sprintf("%s has no summary.json: points aggregated from %s", dir, results.ResultsFile))
	return s, warnings, nil
}

func metaFromRecords(dir string) *results.Meta {
	records, _, err := results.ReadRecords(dir)
	if err != nil {
		return nil
	}
	return metaOf(records)
}

func metaOf(records []results.Record) *results.Meta {
	for _, r := range records {
		if r.Type == results.TypeMeta && r.Meta != nil {
			return r.Meta
		}
	}
	return nil
}

// newRun checks that s is a sweep and fills the source from m (nil when
// unknown).
func newRun(name string, s *results.Summary, m *results.Meta) (*Run, error) {
	if s.Schema != results.SchemaVersion {
		return nil, fmt.Errorf("calibration %s: result schema version %d, this svclab reads %d", name, s.Schema, results.SchemaVersion)
	}
	if s.Kind != "sweep" {
		return nil, fmt.Errorf("calibration %s: run %s is a %q run, not a sweep", name, s.Run, s.Kind)
	}
	if len(s.Points) == 0 {
		return nil, fmt.Errorf("calibration %s: run %s has no sweep points", name, s.Run)
	}
	r := &Run{Source: Source{Name: name, Run: s.Run, Scenario: s.Scenario}, Points: s.Points, WalkProbes: s.WalkProbes, SyncProbes: s.SyncProbes,
		AddrTypeProbes: s.AddrTypeProbes, RecentProbes: s.RecentProbes}
	if m != nil {
		r.Source = Source{Name: name, Run: m.Run, Scenario: m.Scenario, ScenarioHash: m.ScenarioHash, Started: m.Started, Kernel: m.Kernel,
			GuestKernel: m.GuestKernel, CPU: m.CPU, CPUs: m.CPUs, GitCommit: m.GitCommit, Tools: m.Tools,
			Engine: m.Engine, KubeProxyVersion: m.KubeProxyVersion}
		r.Source.Machine = machineOf(r.Source)
		r.ChainListWalk, r.ChainDumpWalk, r.AnonymousSetWalk = m.ChainListWalk, m.ChainDumpWalk, m.AnonymousSetWalk
	}
	if !s.Complete {
		r.Warnings = append(r.Warnings, fmt.Sprintf("calibration %s: run %s is incomplete (interrupted)", name, s.Run))
	}
	for _, warning := range s.SharingWarnings() {
		r.Warnings = append(r.Warnings, fmt.Sprintf("calibration %s: %s; the predictions made with it may be too high", name, warning))
	}
	return r, nil
}
