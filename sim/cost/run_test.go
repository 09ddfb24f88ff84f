package cost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

const sweepDir = "testdata/sweep1"

func TestLoadRunReadsSummaryAndMeta(t *testing.T) {
	run, err := LoadRun(sweepDir)
	if err != nil {
		t.Fatal(err)
	}
	s := run.Source
	if s.Name != sweepDir || s.Run != "svl-26db" || s.Scenario != "sweep-quick" || !strings.HasPrefix(s.Kernel, "6.18.44") ||
		s.CPU == "" || s.CPUs != 2 || len(run.Points) != 26 || len(run.Warnings) != 0 {
		t.Errorf("source %+v, %d points, warnings %q", s, len(run.Points), run.Warnings)
	}
	if !strings.Contains(s.String(), "run svl-26db") || !strings.Contains(s.String(), "kernel 6.18.44") {
		t.Errorf("source line %q", s.String())
	}
}

// TestLoadRunAggregatesResults: without summary.json and meta.json, the
// points come from results.jsonl (metric.Aggregate) and equal summary's.
func TestLoadRunAggregatesResults(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(sweepDir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fromRecords, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	fromSummary, err := LoadRun(sweepDir)
	if err != nil {
		t.Fatal(err)
	}
	if fromRecords.Source.Run != "svl-26db" || fromRecords.Source.Kernel != fromSummary.Source.Kernel {
		t.Errorf("source from the meta record: %+v", fromRecords.Source)
	}
	if !hasWarning(fromRecords.Warnings, "no summary.json") {
		t.Errorf("warnings %q, want one about the missing summary.json", fromRecords.Warnings)
	}
	if len(fromRecords.Points) != len(fromSummary.Points) {
		t.Fatalf("%d points from results.jsonl, %d in summary.json", len(fromRecords.Points), len(fromSummary.Points))
	}
	for i, a := range fromRecords.Points {
		b := fromSummary.Points[i]
		if a.Dataplane != b.Dataplane || a.Services != b.Services || a.Position != b.Position || a.P50us != b.P50us ||
			a.P99us != b.P99us || a.CPUusPerConn != b.CPUusPerConn || a.SyncFullS != b.SyncFullS || a.Rules != b.Rules {
			t.Errorf("point %d: aggregated %+v, summary %+v", i, a, b)
		}
	}
}

func TestLoadRunRejects(t *testing.T) {
	notSweep := t.TempDir()
	if err := results.WriteJSON(notSweep, results.SummaryFile, results.Summary{Schema: results.SchemaVersion, Run: "svl-f", Kind: "fairness"}); err != nil {
		t.Fatal(err)
	}
	newer := t.TempDir()
	if err := results.WriteJSON(newer, results.SummaryFile, results.Summary{Schema: results.SchemaVersion + 1, Kind: "sweep"}); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := results.WriteJSON(empty, results.SummaryFile, results.Summary{Schema: results.SchemaVersion, Kind: "sweep"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, dir, want string }{
		{"missing directory", filepath.Join(t.TempDir(), "nope"), "is it a svclab sweep run directory"},
		{"fairness run", notSweep, "not a sweep"},
		{"newer schema", newer, "newer"},
		{"no points", empty, "no sweep points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadRun(tt.dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestDefaultCalibration: the embedded run loads, names its source and
// calibrates at least one dataplane of each lookup kind it measured.
func TestDefaultCalibration(t *testing.T) {
	run, err := DefaultRun()
	if err != nil {
		t.Fatal(err)
	}
	if run.Source.Name != DefaultSourceName || run.Source.Run == "" || run.Source.Kernel == "" || run.Source.CPU == "" {
		t.Errorf("default source %+v", run.Source)
	}
	m, err := CalibrateDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Dataplane("iptables-nft"); !ok {
		t.Errorf("default calibration lacks iptables-nft: %+v", m.names())
	}
}

// TestLoadRunWarnsOfRunsBeside: a calibration measured while other svclab
// runs or other programs shared the machine (summary.json's beside_runs,
// outside_load) says so.
func TestLoadRunWarnsOfRunsBeside(t *testing.T) {
	s, err := results.ReadSummary(sweepDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		beside  []results.BesideRun
		outside *results.OutsideLoad
		want    string
	}{
		{"alone", nil, &results.OutsideLoad{Seconds: 170, CPUs: 0.01}, ""},
		{"beside a test", []results.BesideRun{{Run: "svl-t1", Kind: "test", PID: 9, FirstSeen: "2026-12-05T06:17:41Z", LastSeen: "2026-12-05T06:18:41Z"}}, nil, "svl-t1 (test, pid 9"},
		{"beside a build", nil, &results.OutsideLoad{Seconds: 170, CPUs: 0.8, PeakCPUs: 1.6}, "other programs used 0.80 CPUs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s.BesideRuns, s.OutsideLoad = tt.beside, tt.outside
			if err := results.WriteJSON(dir, results.SummaryFile, s); err != nil {
				t.Fatal(err)
			}
			run, err := LoadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			shared := hasWarning(run.Warnings, "shared the machine") || hasWarning(run.Warnings, "outside svclab")
			switch {
			case tt.want == "" && shared:
				t.Errorf("warnings %q: want none of a shared machine", run.Warnings)
			case tt.want != "" && !hasWarning(run.Warnings, tt.want):
				t.Errorf("warnings %q: want one saying %q", run.Warnings, tt.want)
			}
		})
	}
}

// TestLoadRunPoolsChainListWalks: the walk timed again at the end of a run
// (a chain_list_walk record) is pooled with meta.json's.
func TestLoadRunPoolsChainListWalks(t *testing.T) {
	first := []results.ChainListStep{{Chains: 90510, NsPerStep: 40, Layout: results.ChainListFull, NodeBytes: 352, MinNsPerStep: 30, MaxNsPerStep: 60}}
	again := []results.ChainListStep{{Chains: 90510, NsPerStep: 120, Layout: results.ChainListFull, NodeBytes: 352, MinNsPerStep: 90, MaxNsPerStep: 200}}
	for _, tt := range []struct {
		name  string
		again []results.ChainListStep
		want  []results.ChainListStep
		swing bool // warned that the walks lay 3.0× apart
	}{
		{"the first walk alone", nil, first, false},
		{"timed again", again, results.PoolChainListWalks(first, again), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{results.SummaryFile, results.ResultsFile} {
				data, err := os.ReadFile(filepath.Join(sweepDir, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			meta, err := results.ReadMeta(sweepDir)
			if err != nil {
				t.Fatal(err)
			}
			meta.ChainListWalk = first
			if err := results.WriteJSON(dir, results.MetaFile, meta); err != nil {
				t.Fatal(err)
			}
			if tt.again != nil {
				line, err := json.Marshal(results.Record{Schema: results.SchemaVersion, Type: results.TypeChainListWalk, ChainListWalk: tt.again})
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(filepath.Join(dir, results.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.Write(append(line, '\n'))
				if cerr := f.Close(); err != nil || cerr != nil {
					t.Fatal(err, cerr)
				}
			}
			run, err := LoadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(run.ChainListWalk, tt.want) {
				t.Errorf("walk %+v, want %+v", run.ChainListWalk, tt.want)
			}
			m, err := CalibrateRun(run, Options{MaxN: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if got := hasWarning(m.Warnings, "differed 3.0× at 90510 chains"); got != tt.swing {
				t.Errorf("warnings %q: warned of the swing %t, want %t", m.Warnings, got, tt.swing)
			}
		})
	}
}
