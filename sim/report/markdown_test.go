package report

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/results"
)

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// TestSweepTableGolden proves the terminal table of the synthetic sweep.
func TestSweepTableGolden(t *testing.T) {
	s := Rebuild(sweepRecords())
	var buf bytes.Buffer
	if err := SweepTable(&buf, s); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sweep-table.txt", buf.Bytes())
}

// TestWriteReportFromRecordsOnly proves that a run directory holding only
// results.jsonl (a run killed before it wrote summary.json and meta.json)
// gets report.md, matching the golden file, and PNG+SVG plots.
func TestWriteReportFromRecordsOnly(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, sweepRecords())
	rep, err := WriteReport(dir)
	if err != nil {
		t.Fatalf("WriteReport: %v", err)
	}
	if rep.Markdown != filepath.Join(dir, ReportFile) {
		t.Errorf("Markdown = %s, want %s", rep.Markdown, filepath.Join(dir, ReportFile))
	}
	md, err := os.ReadFile(rep.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sweep-report.md", md)
	wantPlots := []string{"latency-p50-last", "latency-p99-last", "cpu-last", "sync", "rules"}
	if len(rep.Plots) != 2*len(wantPlots) {
		t.Fatalf("plots = %v, want PNG and SVG of %v", rep.Plots, wantPlots)
	}
	for i, name := range wantPlots {
		for j, ext := range []string{".png", ".svg"} {
			want := filepath.Join(dir, PlotsDir, name+ext)
			if rep.Plots[2*i+j] != want {
				t.Errorf("plot %d = %s, want %s", 2*i+j, rep.Plots[2*i+j], want)
			}
			if !strings.Contains(string(md), "("+PlotsDir+"/"+name+ext+")") {
				t.Errorf("report.md does not link %s%s", name, ext)
			}
		}
		checkPNG(t, filepath.Join(dir, PlotsDir, name+".png"))
	}
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != 1152 || b.Dy() != 720 {
		t.Errorf("%s is %dx%d, want 1152x720", path, b.Dx(), b.Dy())
	}
}

// TestWriteReportSources proves which source each kind of run directory
// is reported from, and what the report says about it.
func TestWriteReportSources(t *testing.T) {
	complete := &results.Summary{Schema: results.SchemaVersion, Run: "svl-fair", Scenario: "split-3", Kind: "fairness", Complete: true,
		Runs: []results.FairnessRun{sampleFairnessRun()}}
	truncated := func(t *testing.T, dir string) {
		// meta, then 1 and 1000 services on both dataplanes: too few to fit
		writeRecords(t, dir, sweepRecords()[:5])
		f, err := os.OpenFile(filepath.Join(dir, results.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"schema":1,"type":"point","point":{"datapl`)
		f.Close()
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		want    []string
		notWant []string
		plots   int
	}{
		{"complete fairness summary", func(t *testing.T, dir string) {
			if err := results.WriteJSON(dir, results.SummaryFile, complete); err != nil {
				t.Fatal(err)
			}
		}, []string{"# svclab report: split-3 fairness (svl-fair)", "## Fairness", "### iptables-nft: demo/web:http",
			"| 10.244.1.3:8080 | web-1 | 505 | 0.5050 |", "](plots/fairness-01-iptables-nft.png)", "meta.json is missing",
			"### Across dataplanes", "](plots/fairness-across-01.png)", "](plots/cascade-01.png)"},
			[]string{"Incomplete run", "rebuilt", "## Sweep points"}, 6},
		{"incomplete summary and records", func(t *testing.T, dir string) {
			writeRecords(t, dir, sweepRecords())
			s := &results.Summary{Schema: results.SchemaVersion, Kind: "sweep", Warnings: []string{"interrupted at 20000 services"}}
			if err := results.WriteJSON(dir, results.SummaryFile, s); err != nil {
				t.Fatal(err)
			}
		}, []string{"summary.json is incomplete", "interrupted at 20000 services", "| iptables-nft | 20000 | last |"}, nil, 10},
		{"truncated results.jsonl", truncated,
			[]string{"Incomplete run", "the last line is incomplete", "| iptables-nft | 1 | last | 1 |", "No fits: a fit needs at least 3"},
			[]string{"## Fits against services\n\n|"}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			rep, err := WriteReport(dir)
			if err != nil {
				t.Fatalf("WriteReport: %v", err)
			}
			md, err := os.ReadFile(rep.Markdown)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(md), w) {
					t.Errorf("report.md lacks %q:\n%s", w, md)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(string(md), w) {
					t.Errorf("report.md has %q", w)
				}
			}
			if len(rep.Plots) != tc.plots {
				t.Errorf("%d plot files %v, want %d", len(rep.Plots), rep.Plots, tc.plots)
			}
		})
	}
}

func TestWriteReportEmptyDirectory(t *testing.T) {
	_, err := WriteReport(t.TempDir())
	if !errors.Is(err, ErrEmptyRun) || !strings.Contains(err.Error(), "not a run directory") {
		t.Fatalf("err = %v, want ErrEmptyRun", err)
	}
}

// sampleFairnessRun is a two-endpoint iptables-nft run.
func sampleFairnessRun() results.FairnessRun {
	return results.FairnessRun{
		Dataplane: "iptables-nft", Service: "demo/web:http", ClusterIP: "10.96.0.10:80", Mode: "connect", Connections: 1000,
		Endpoints: []results.Endpoint{
			{Endpoint: "10.244.1.2:8080", Pod: "web-0", Count: 495, DNAT: 495, Share: 0.495, ShareLo: 0.464, ShareHi: 0.526, Expected: 0.5},
			{Endpoint: "10.244.1.3:8080", Pod: "web-1", Count: 505, DNAT: 505, Share: 0.505, ShareLo: 0.474, ShareHi: 0.536, Expected: 0.5},
		},
		ChiSquare: 0.1, ChiSquareP: 0.7518, Jain: 0.9999, MaxMinRatio: 1.0202, CountsAgree: true, ChainEntered: 1000,
		Rules: []results.Rule{
			{Chain: "KUBE-SVC-X", Index: 2, Target: "KUBE-SEP-A", Probability: 0.5, Packets: 495, Reached: 1000, Observed: 0.495, ObservedLo: 0.464, ObservedHi: 0.526, P: 0.78},
			{Chain: "KUBE-SVC-X", Index: 3, Target: "KUBE-SEP-B", Probability: 1, Packets: 505, Reached: 505, Observed: 1, ObservedLo: 0.99, ObservedHi: 1, P: 1},
		},
	}
}

// TestSweepTableWalkProbesGolden: a sweep's walk probes get a table of
// their own (medians, the repetitions' standard deviation), apart from the
// points, whose table and fits they leave as they were.
func TestSweepTableWalkProbesGolden(t *testing.T) {
	records := sweepRecords()
	for rep, p50 := range []float64{270, 272, 278} {
		for _, pos := range []string{"last", "uniform"} {
			records = append(records, results.Record{Type: results.TypeWalkProbe, Point: &results.Point{Dataplane: "iptables-legacy",
				Services: 40000, Position: pos, Repetition: rep + 1, Connections: 1000, P50us: p50, P99us: p50 + 80, Rules: 40034}})
		}
	}
	var plain, probed bytes.Buffer
	if err := SweepTable(&plain, Rebuild(sweepRecords())); err != nil {
		t.Fatal(err)
	}
	if err := SweepTable(&probed, Rebuild(records)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(probed.Bytes(), []byte("walk probes")) || !bytes.HasSuffix(probed.Bytes(), plain.Bytes()[bytes.Index(plain.Bytes(), []byte("\nfits")):]) {
		t.Errorf("the walk probes table is missing, or the fits changed:\n%s", probed.String())
	}
	checkGolden(t, "sweep-table-walk-probes.txt", probed.Bytes())
}

// TestSweepTableSyncProbesGolden: a sweep's sync probes get a table of
// their own (medians over repetitions; a map lookup's with its uniform
// p50) and leave the points and fits as they were.
func TestSweepTableSyncProbesGolden(t *testing.T) {
	records := sweepRecords()
	for rep, sync := range []float64{1.31, 1.28, 1.45} {
		records = append(records, results.Record{Type: results.TypeSyncProbe, Point: &results.Point{Dataplane: "iptables-legacy",
			Services: 20000, Repetition: rep + 1, SyncFullS: sync, SyncFullCPUS: sync - 0.02, Rules: 140018, Bytes: 11700000, KernelMemBytes: 53000000}},
			results.Record{Type: results.TypeSyncProbe, Point: &results.Point{Dataplane: "nftables", Services: 20000, Position: "uniform",
				Repetition: rep + 1, Connections: 1000, P50us: 20 + sync, SyncFullS: 2 * sync, SyncFullCPUS: 2*sync - 0.02, Rules: 20022, Bytes: 10326216, KernelMemBytes: 21000000}})
	}
	var plain, probed bytes.Buffer
	if err := SweepTable(&plain, Rebuild(sweepRecords())); err != nil {
		t.Fatal(err)
	}
	if err := SweepTable(&probed, Rebuild(records)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(probed.Bytes(), []byte("sync probes")) || !bytes.HasSuffix(probed.Bytes(), plain.Bytes()[bytes.Index(plain.Bytes(), []byte("\nfits")):]) ||
		!bytes.HasPrefix(probed.Bytes(), plain.Bytes()[:bytes.Index(plain.Bytes(), []byte("\nfits"))]) {
		t.Errorf("the sync probes table is missing, or the points or fits changed:\n%s", probed.String())
	}
	checkGolden(t, "sweep-table-sync-probes.txt", probed.Bytes())
}
