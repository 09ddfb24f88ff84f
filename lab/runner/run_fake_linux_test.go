package runner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// runOnFakes runs a scenario against the simulated machine, as any user.
func runOnFakes(t *testing.T, ctx context.Context, sc *scenario.Scenario) (*runner.Outcome, *labfake.Machine, error) {
	t.Helper()
	return runOn(t, ctx, sc, &labfake.Machine{Seed: 7})
}

// runFakeSweep runs fakeSweep with tail appended to its sweep section on
// fakes.
func runFakeSweep(t *testing.T, tail string) (*runner.Outcome, *labfake.Machine, error) {
	t.Helper()
	return runOnFakes(t, t.Context(), loadScenarioText(t, fakeSweep+tail))
}

// loadScenarioText writes a scenario to a file and loads it.
func loadScenarioText(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func runOn(t *testing.T, ctx context.Context, sc *scenario.Scenario, m *labfake.Machine) (*runner.Outcome, *labfake.Machine, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	out, err := runner.Run(ctx, sc, runner.RunOptions{Options: runner.Options{OutDir: dir, Prefix: "svl-fake", Machine: m}})
	return out, m, err
}

func records(t *testing.T, dir string) map[string][]results.Record {
	t.Helper()
	recs, warnings, err := results.ReadRecords(dir)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("read %s: %v %v", dir, err, warnings)
	}
	by := map[string][]results.Record{}
	for _, r := range recs {
		by[r.Type] = append(by[r.Type], r)
	}
	return by
}

func TestFairnessRunOnFakes(t *testing.T) {
	sc, err := scenario.Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	out, m, err := runOnFakes(t, t.Context(), sc)
	if err != nil {
		t.Fatal(err)
	}
	by := records(t, out.Dir)
	if len(by[results.TypeMeta]) != 1 || len(by[results.TypeFairness]) != 3 {
		t.Fatalf("records: %d meta, %d fairness; want 1 and 3 (one per dataplane)", len(by[results.TypeMeta]), len(by[results.TypeFairness]))
	}
	for _, r := range by[results.TypeFairness] {
		f := r.Fairness
		if f.Connections != 20000 || f.Errors != 0 || !f.CountsAgree || len(f.Endpoints) != 2 {
			t.Errorf("%s: %d connections, %d errors, agree %v, %d endpoints", f.Dataplane, f.Connections, f.Errors, f.CountsAgree, len(f.Endpoints))
		}
		for _, ep := range f.Endpoints {
			if math.Abs(ep.Share-0.5) > 0.02 {
				t.Errorf("%s %s share %.4f, want 0.5 ± 0.02", f.Dataplane, ep.Endpoint, ep.Share)
			}
		}
		if wantRules := f.Dataplane != "nftables"; (len(f.Rules) == 2) != wantRules {
			t.Errorf("%s: %d cascade rules", f.Dataplane, len(f.Rules))
		}
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil || !s.Complete || len(s.Runs) != 3 {
		t.Fatalf("summary: %v, complete %v, %d runs", err, s != nil && s.Complete, len(s.Runs))
	}
	if len(m.Labs) != 1 || !m.Labs[0].Closed {
		t.Errorf("labs built %d, closed %v; want one, closed", len(m.Labs), len(m.Labs) == 1 && m.Labs[0].Closed)
	}
}

const fakeSweep = `name: fake-sweep
sweep:
  services: [3, 200, 400]
  dataplanes: [iptables-legacy, nftables]
  positions: [first, last]
  endpointsPerService: 1
  connections: 50
  warmup: 5
  repetitions: 2
  throughputConnections: 100
  seed: 1
`

func TestSweepPlanOnFakes(t *testing.T) {
	out, m, err := runOnFakes(t, t.Context(), loadScenarioText(t, fakeSweep))
	if err != nil {
		t.Fatal(err)
	}
	points := records(t, out.Dir)[results.TypePoint]
	if want := 3 * 2 * 2 * 2; len(points) != want { // counts × dataplanes × positions × repetitions
		t.Fatalf("%d point records, want %d", len(points), want)
	}
	if len(m.Labs) != 6 {
		t.Errorf("%d labs built, want one per (dataplane, count) = 6", len(m.Labs))
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil || !s.Complete {
		t.Fatalf("summary: %v (complete %v)", err, s != nil && s.Complete)
	}
	slopes := map[string]float64{}
	for _, f := range s.Fits {
		if f.Position == "last" && f.Metric == "p50_us" {
			slopes[f.Dataplane] = f.SlopeNsPerService
		}
	}
	if slopes["iptables-legacy"] < 15 || math.Abs(slopes["nftables"]) > 1 {
		t.Errorf("last-position slopes %v: want ≈20 ns/service for the fake iptables walk and ≈0 for nftables", slopes)
	}
}

// TestSweepWalkProbeOnFakes: a sweep's walk probes load through the fake's
// validating iptables-restore, for the rule-walk dataplane only, and are
// recorded as walk_probe records, summarized apart from the points, with
// the walk to the last target costing what the fake's walk of that many
// rules does.
func TestSweepWalkProbeOnFakes(t *testing.T) {
	out, _, err := runFakeSweep(t, "  walkProbe: [500, 1000]\n")
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, out.Dir)
	if got, want := len(recs[results.TypePoint]), 3*2*2*2; got != want {
		t.Fatalf("%d point records, want %d (the probes apart)", got, want)
	}
	if got, want := len(recs[results.TypeWalkProbe]), 2*1*2*2; got != want { // sizes × rule-walk dataplanes × positions × repetitions
		t.Fatalf("%d walk_probe records, want %d", got, want)
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	last := map[int]float64{}
	for _, p := range s.WalkProbes {
		if p.Dataplane != "iptables-legacy" {
			t.Errorf("walk probe of %s, want iptables-legacy's only", p.Dataplane)
		}
		if p.Position == "last" {
			last[p.Services] = p.P50us
		}
	}
	if d := last[1000] - last[500]; d < 8 || d > 12 { // the fake walk: 20 ns per rule
		t.Errorf("walk probe p50 at last: %v; want 500 more rules to add about 10 µs", last)
	}
}

// TestSweepAddrTypeProbeOnFakes: an addrtype probe loads through the
// fake's validating iptables-restore with its rules added, is recorded
// apart (addrtype_probe records, the rules in Extra), and a calibration on
// the run prices an addrtype match at the fake's cost of one beyond a
// plain rule (0.08 − 0.02 µs).
func TestSweepAddrTypeProbeOnFakes(t *testing.T) {
	out, _, err := runFakeSweep(t, "  walkProbe: [500, 1000]\n  addrTypeProbe: [500]\n")
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, out.Dir)
	if got, want := len(recs[results.TypeAddrTypeProbe]), 1*1*2*2; got != want { // sizes × rule-walk dataplanes × positions × repetitions
		t.Fatalf("%d addrtype_probe records, want %d", got, want)
	}
	for _, r := range recs[results.TypeAddrTypeProbe] {
		if r.Point.Extra[results.ExtraAddrTypeRules] != 500 || r.Point.Rules <= 500 {
			t.Errorf("addrtype probe record %+v: want 500 rules added to the walk probe's", *r.Point)
		}
	}
	m, err := cost.Calibrate(out.Dir, cost.Options{MaxN: 1000})
	if err != nil {
		t.Fatal(err)
	}
	dm, ok := m.Dataplane("iptables-legacy")
	if !ok || dm.AddrType == nil {
		t.Fatalf("no addrtype cost calibrated: %+v", dm)
	}
	if got := dm.AddrType.PerMatchUs.Value; math.Abs(got-0.06) > 0.01 {
		t.Errorf("an addrtype match costs %v µs beyond a plain rule, want the fake's 0.06", got)
	}
}

// TestSweepRecentProbeOnFakes: a recent probe loads the smallest walk
// probe with its lists and rules through the fake's validating
// iptables-restore, is recorded apart (recent_probe records, the lists and
// rules in Extra), and a calibration on the run prices a step at the
// fake's cost of one (0.01 µs; the plain rule it subtracts is spread over
// the steps).
func TestSweepRecentProbeOnFakes(t *testing.T) {
	out, _, err := runFakeSweep(t, "  walkProbe: [500, 1000]\n  recentProbe: 300\n")
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, out.Dir)
	if got, want := len(recs[results.TypeRecentProbe]), 1*1*2*2; got != want { // one size × rule-walk dataplanes × positions × repetitions
		t.Fatalf("%d recent_probe records, want %d", got, want)
	}
	for _, r := range recs[results.TypeRecentProbe] {
		p := r.Point
		if p.Services != 500 || p.Extra[results.ExtraRecentTables] != 300 || p.Extra[results.ExtraRecentRules] != iptables.RecentProbeRules || p.Rules <= 300 {
			t.Errorf("recent probe record %+v: want the 500-service walk probe with 300 lists and %d rules", *p, iptables.RecentProbeRules)
		}
	}
	m, err := cost.Calibrate(out.Dir, cost.Options{MaxN: 1000})
	if err != nil {
		t.Fatal(err)
	}
	dm, ok := m.Dataplane("iptables-legacy")
	if !ok || dm.Recent == nil {
		t.Fatalf("no recent cost calibrated: %+v", dm)
	}
	if got := dm.Recent.PerStepUs.Value; math.Abs(got-0.01) > 0.001 || dm.Recent.Lists != 301 {
		t.Errorf("a step costs %v µs over %d lists, want the fake's 0.01 over 301", got, dm.Recent.Lists)
	}
}

// TestSweepWalkProbeReloadsWithTheRules: when the sweep reloads its rules
// every repetition, so does every walk probe (a long walk's cost depends on
// the state each load leaves): 2 repetitions load each of the 6 points' and
// the 2 probes' labs twice; with walkProbeReload: false the probes load
// once.
func TestSweepWalkProbeReloadsWithTheRules(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		want  int
	}{
		{"with the rules", "", 2 * (6 + 2)},
		{"walkProbeReload false", "  walkProbeReload: false\n", 2*6 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m, err := runFakeSweep(t, "  walkProbe: [500, 1000]\n  syncEachRepetition: true\n"+tt.extra)
			if err != nil {
				t.Fatal(err)
			}
			loads := 0
			for _, l := range m.Labs {
				if d := l.Active(); d != nil {
					loads += d.Syncs
				}
			}
			if loads != tt.want {
				t.Errorf("%d loads over the labs, want %d", loads, tt.want)
			}
		})
	}
}

// TestSweepSyncProbeOnFakes: a sync probe loads the full ruleset of its
// size once per repetition, for the dataplanes within their timed-sync
// limit only, then times one change's incremental sync (never a batch),
// and records its syncs apart from the points, with no traffic (the fake's
// sync takes 1 µs per rule).
func TestSweepSyncProbeOnFakes(t *testing.T) {
	out, m, err := runFakeSweep(t, "  syncProbe: [1000]\n  syncLimit: {nftables: 500}\n  incrementalBatch: 50\n")
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, out.Dir)
	if got, want := len(recs[results.TypePoint]), 3*2*2*2; got != want {
		t.Fatalf("%d point records, want %d (the probes apart)", got, want)
	}
	if got, want := len(recs[results.TypeSyncProbe]), 2; got != want { // iptables-legacy's, once per repetition
		t.Fatalf("%d sync_probe records, want %d", got, want)
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SyncProbes) != 1 {
		t.Fatalf("summary sync probes %+v, want iptables-legacy's alone", s.SyncProbes)
	}
	p := s.SyncProbes[0]
	if p.Dataplane != "iptables-legacy" || p.Services != 1000 || p.Rules <= 1000 || p.P50us != 0 || p.SyncIncrementalS <= 0 || p.SyncBatch != 0 {
		t.Errorf("sync probe %+v: want iptables-legacy's 1,000 services' rules, no traffic, one change's incremental sync and no batch", p)
	}
	if want := float64(p.Rules) * 1e-6; math.Abs(p.SyncFullS-want) > 1e-9 {
		t.Errorf("sync probe full sync %v s, want the fake's %v s for %d rules", p.SyncFullS, want, p.Rules)
	}
	if p.SyncFullCPUS <= 0 || p.SyncFullCPUS >= p.SyncFullS || p.SyncIncrementalCPUS <= 0 || p.SyncIncrementalCPUS >= p.SyncIncrementalS {
		t.Errorf("sync probe CPU times: full %v s of %v, incremental %v s of %v; want each the fake tool's 9/10 of its sync", p.SyncFullCPUS, p.SyncFullS, p.SyncIncrementalCPUS, p.SyncIncrementalS)
	}
	if math.Abs(p.SyncFullUserS-p.SyncFullS*0.6) > 1e-9 || math.Abs(p.SyncIncrementalUserS-p.SyncIncrementalS*0.6) > 1e-9 {
		t.Errorf("sync probe user CPU times: full %v s of %v, incremental %v s of %v; want each the fake tool's 6/10 of its sync", p.SyncFullUserS, p.SyncFullS, p.SyncIncrementalUserS, p.SyncIncrementalS)
	}
	probes := 0
	for _, l := range m.Labs {
		if d := l.Active(); d != nil && d.Syncs == 2 && d.Changes == 2 {
			probes++
		}
	}
	if probes != 1 {
		t.Errorf("%d labs loaded twice with one change applied after each load, want the probe's alone", probes)
	}
}

// TestSweepLookupProbeOnFakes: a sync probe of a dataplane that looks its
// services up in a map (nftables) also probes the uniform position when
// the sweep does (50 connections in each of 2 repetitions); a rule
// walk's (iptables-legacy) records no traffic.
func TestSweepLookupProbeOnFakes(t *testing.T) {
	sc := loadScenarioText(t, strings.Replace(fakeSweep, "positions: [first, last]", "positions: [last, uniform]", 1)+"  syncProbe: [1000]\n")
	out, _, err := runOnFakes(t, t.Context(), sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dataplane string
		traffic   bool
	}{{"iptables-legacy", false}, {"nftables", true}}
	for _, tt := range tests {
		t.Run(tt.dataplane, func(t *testing.T) {
			i := slices.IndexFunc(s.SyncProbes, func(p results.Point) bool { return p.Dataplane == tt.dataplane })
			if i < 0 {
				t.Fatalf("no sync probe for %s in %+v", tt.dataplane, s.SyncProbes)
			}
			p := s.SyncProbes[i]
			if got := p.P50us > 0 && p.Position == "uniform" && p.Connections == 2*50; got != tt.traffic {
				t.Errorf("sync probe %+v: uniform traffic %v, want %v", p, got, tt.traffic)
			}
			if p.SyncFullS <= 0 || p.SyncIncrementalS <= 0 {
				t.Errorf("sync probe %+v: its syncs not timed", p)
			}
		})
	}
}

// TestSweepIncrementalBatchOnFakes: sweep.incrementalBatch times a second
// partial sync carrying that many changes at every size with fillers to
// change. The fake checks iptables' as kube-proxy's partial payload for all
// of them (1 µs a rule: more rules than one change's); its nftables renders
// the whole script after any change, so only the count is checked there.
func TestSweepIncrementalBatchOnFakes(t *testing.T) {
	out, m, err := runFakeSweep(t, "  incrementalBatch: 50\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records(t, out.Dir)[results.TypePoint] {
		p := r.Point
		want := 50
		if p.Services == 3 {
			want = 0 // no fillers: neither sync is timed
		}
		longer := p.SyncBatchS > p.SyncIncrementalS || p.Dataplane != "iptables-legacy"
		if p.SyncBatch != want || want > 0 && !longer {
			t.Errorf("%s at %d services: batch of %d in %v s, one change in %v s; want %d changes taking longer than one",
				p.Dataplane, p.Services, p.SyncBatch, p.SyncBatchS, p.SyncIncrementalS, want)
		}
	}
	for _, l := range m.Labs {
		if d := l.Active(); d != nil && d.Changes != 0 && d.Changes != 2 {
			t.Errorf("a lab applied %d changes, want the one change and the batch", d.Changes)
		}
	}
}

// TestSweepServiceCreationsOnFakes: with sweep.incrementalBatchKind:
// services the batch creates that many new Services in one partial sync.
// The fake checks iptables' payload as kube-proxy's partial sync for the
// new services' chains (1 µs a rule: 50 new services' chains are more
// rules than one change's) and then routes by the model with them.
func TestSweepServiceCreationsOnFakes(t *testing.T) {
	out, m, err := runFakeSweep(t, "  incrementalBatch: 50\n  incrementalBatchKind: services\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records(t, out.Dir)[results.TypePoint] {
		p := r.Point
		if p.Services == 3 {
			continue // no fillers: no change is timed
		}
		longer := p.SyncBatchS > p.SyncIncrementalS || p.Dataplane != "iptables-legacy"
		if p.SyncBatch != 50 || p.SyncBatchKind != results.BatchServices || !longer {
			t.Errorf("%s at %d services: batch of %d %q in %v s, one change in %v s; want 50 Services created, taking longer than one change",
				p.Dataplane, p.Services, p.SyncBatch, p.SyncBatchKind, p.SyncBatchS, p.SyncIncrementalS)
		}
	}
	for _, l := range m.Labs {
		if d := l.Active(); d != nil && d.Changes != 0 && d.Changes != 2 {
			t.Errorf("a lab applied %d changes, want the one change and the creations", d.Changes)
		}
	}
}

// TestSweepDeadlineKeepsTheMinimumRepetitions: a deadline already passed
// cuts a sweep of 4 repetitions to its minimum of 2, and the run is complete.
func TestSweepDeadlineKeepsTheMinimumRepetitions(t *testing.T) {
	sc := loadScenarioText(t, strings.Replace(fakeSweep, "repetitions: 2", "repetitions: 4", 1))
	dir := filepath.Join(t.TempDir(), "run")
	opts := runner.Options{OutDir: dir, Prefix: "svl-fake", Machine: &labfake.Machine{Seed: 7}, Deadline: time.Now().Add(-time.Second)}
	out, err := runner.Run(t.Context(), sc, runner.RunOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if points, want := records(t, out.Dir)[results.TypePoint], 3*2*2*2; len(points) != want {
		t.Fatalf("%d point records, want %d (2 repetitions, the minimum)", len(points), want)
	}
	if s, err := results.ReadSummary(out.Dir); err != nil || !s.Complete {
		t.Fatalf("summary: %v (complete %v)", err, s != nil && s.Complete)
	}
}

func TestCancelledRunRecordsInterruption(t *testing.T) {
	sc, err := scenario.Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out, m, err := runOnFakes(t, ctx, sc)
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	last := records(t, out.Dir)[results.TypeInterrupted]
	if len(last) != 1 || last[0].Interrupted.Signal != "cancelled" {
		t.Fatalf("interrupted records %+v", last)
	}
	if s, _ := results.ReadSummary(out.Dir); s == nil || s.Complete {
		t.Errorf("summary of an interrupted run must say complete: false")
	}
	for _, l := range m.Labs {
		if !l.Closed {
			t.Errorf("lab %s left open", l.Spec.Prefix)
		}
	}
}

// Point 4 of the reliability issue: summary.json says complete only when
// every planned measurement was made: not for a run whose lab could not be
// built, nor for one whose only service has no ready endpoint.
func TestPoint04NothingMeasuredIsNotComplete(t *testing.T) {
	noReady := "services:\n  - namespace: demo\n    name: web\n    clusterIP: 10.96.0.10\n" +
		"    ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]\n" +
		"    endpoints: [{ip: 10.244.1.2, ready: false}]\nfairness: {dataplanes: [iptables-nft]}\n"
	sc, err := scenario.Parse("no-ready.yaml", []byte(noReady))
	if err != nil {
		t.Fatal(err)
	}
	split2, err := scenario.Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		sc *scenario.Scenario
		m  *labfake.Machine
	}{
		"no ready endpoint": {sc, &labfake.Machine{}},
		"lab build failed":  {split2, &labfake.Machine{BuildError: errors.New("no room")}},
	} {
		out, _, err := runOn(t, t.Context(), tc.sc, tc.m)
		if err == nil {
			t.Errorf("%s: the run succeeded though it measured nothing", name)
		}
		s, serr := results.ReadSummary(out.Dir)
		if serr != nil || s.Complete {
			t.Errorf("%s: summary %v, complete %v; want complete: false", name, serr, s != nil && s.Complete)
		}
	}
}

// Point 16: when the servers and the kernel count differently, the summary
// says so in a warning (and the run record says the counts differ).
func TestPoint16CountDisagreementIsAWarning(t *testing.T) {
	sc, err := scenario.Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runOn(t, t.Context(), sc, &labfake.Machine{MiscountKernel: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	warned := 0
	for _, w := range s.Warnings {
		if strings.Contains(w, "differ") {
			warned++
		}
	}
	if warned != len(s.Runs) || len(s.Runs) == 0 {
		t.Errorf("%d disagreement warnings for %d runs: %v", warned, len(s.Runs), s.Warnings)
	}
}

// TestProbeCPU checks that a sweep's probe CPU reaches meta.json, and that
// one the run may not use is refused before the run starts (no run
// directory), as bad input.
func TestProbeCPU(t *testing.T) {
	allowed, err := traffic.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runFakeSweep(t, fmt.Sprintf("  probeCPU: %d\n", allowed[0]))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := results.ReadMeta(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.ProbeCPU == nil || *meta.ProbeCPU != allowed[0] {
		t.Errorf("meta.json probe_cpu = %v, want %d", meta.ProbeCPU, allowed[0])
	}
	out, _, err = runFakeSweep(t, fmt.Sprintf("  probeCPU: %d\n", allowed[len(allowed)-1]+1))
	var input *runner.InputError
	if !errors.As(err, &input) || !strings.Contains(err.Error(), "sweep.probeCPU") {
		t.Fatalf("a CPU the run may not use: %v, want an input error naming sweep.probeCPU", err)
	}
	if out != nil {
		t.Errorf("the refused run made %s", out.Dir)
	}
}
