package ab

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// writeRepetition writes a one-repetition run directory as svclab run
// --repetitions 1 does: a meta record and its points, all repetition 1.
func writeRepetition(t *testing.T, dir string, records []results.Record) {
	t.Helper()
	w, err := results.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range records {
		if r.Point != nil {
			p := *r.Point
			p.Repetition = 1
			r.Point = &p
		}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMergeAndLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	d := drifts(rng, 8)
	sides := map[string][]results.Record{Base: sideRecords(rng, d, 1, 1), New: sideRecords(rng, d, 1.3, 1)}
	for name, records := range sides {
		for rep := 1; rep <= 8; rep++ {
			one := []results.Record{records[0], records[2*rep-1], records[2*rep]}
			writeRepetition(t, RepetitionDir(filepath.Join(dir, name), rep), one)
		}
		if err := Merge(filepath.Join(dir, name), 8); err != nil {
			t.Fatal(err)
		}
	}
	plan := Plan{Scenario: "s.yaml", Repetitions: 8, Seed: 1, Order: Order(8, 1)}
	data, _ := json.Marshal(plan)
	if err := os.WriteFile(filepath.Join(dir, PlanFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, base, new, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Repetitions != 8 || len(base) != 17 || len(new) != 17 {
		t.Fatalf("loaded plan %+v with %d and %d records, want 8 repetitions and 1+16 records a side", got, len(base), len(new))
	}
	reps := map[int]int{}
	for _, r := range base[1:] {
		reps[r.Point.Repetition]++
	}
	for rep := 1; rep <= 8; rep++ {
		if reps[rep] != 2 {
			t.Errorf("repetition %d has %d points, want 2 (renumbered)", rep, reps[rep])
		}
	}
	summary, err := results.ReadSummary(filepath.Join(dir, Base))
	if err != nil || len(summary.Points) != 2 || summary.Points[0].Repetitions != 8 {
		t.Errorf("merged summary %+v, %v: want 2 points of 8 repetitions", summary, err)
	}
	res, err := Analyze(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatText, FormatMarkdown, FormatJSON} {
		var b bytes.Buffer
		if err := WriteReport(&b, format, got, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "REGRESSION") || !strings.Contains(b.String(), "p10_us") {
			t.Errorf("%s report lacks the p10_us regression:\n%s", format, b.String())
		}
		if format == FormatJSON && !json.Valid(b.Bytes()) {
			t.Errorf("JSON report is not JSON:\n%s", b.String())
		}
	}
}

func TestMergeRefusesAnEmptyRepetition(t *testing.T) {
	dir := t.TempDir()
	writeRepetition(t, RepetitionDir(dir, 1), []results.Record{{Type: results.TypeMeta, Meta: &results.Meta{Scenario: "s"}}})
	if err := Merge(dir, 1); err == nil || !strings.Contains(err.Error(), "no sweep point") {
		t.Errorf("err = %v, want one saying the repetition recorded no sweep point", err)
	}
	if err := Merge(t.TempDir(), 1); err == nil {
		t.Error("a missing repetition merged")
	}
}

func TestUnboundedReportIsValidJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	d := drifts(rng, 3)
	res, err := Analyze(sideRecords(rng, d, 1, 1), sideRecords(rng, d, 1, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteReport(&b, FormatJSON, nil, res); err != nil || !json.Valid(b.Bytes()) || !strings.Contains(b.String(), `"detectable_pct": null`) {
		t.Errorf("report of 3 pairs: %v\n%s", err, b.String())
	}
}

// TestMergeKeepsWhatSharedTheMachine: a side merged from repetitions, one
// measured beside another svclab run and one beside a build, keeps both in
// its summary.json, with the warnings; repetitions alone add none.
func TestMergeKeepsWhatSharedTheMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	records := sideRecords(rng, drifts(rng, 3), 1, 1)
	other := results.BesideRun{Run: "svl-othr", Kind: "run", PID: 7, FirstSeen: "2026-12-05T10:00:00Z", LastSeen: "2026-12-05T10:00:30Z"}
	for _, tt := range []struct {
		name      string
		summaries []results.Summary
		warnings  []string
	}{
		{"alone", []results.Summary{{OutsideLoad: &results.OutsideLoad{Seconds: 30}}, {OutsideLoad: &results.OutsideLoad{Seconds: 30}}, {}}, nil},
		{"shared", []results.Summary{
			{BesideRuns: []results.BesideRun{other}, OutsideLoad: &results.OutsideLoad{Seconds: 30}},
			{OutsideLoad: &results.OutsideLoad{Seconds: 10, CPUs: 1.2, PeakCPUs: 1.5, PeakAt: "2026-12-05T10:01:00Z"}},
			{},
		}, []string{"svl-othr (run, pid 7", "other programs used 0.30 CPUs on average over 40 s (1.50 at most"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rep := 1; rep <= 3; rep++ {
				repDir := RepetitionDir(dir, rep)
				writeRepetition(t, repDir, []results.Record{records[0], records[2*rep-1], records[2*rep]})
				summary := tt.summaries[rep-1]
				summary.Schema = results.SchemaVersion
				if err := results.WriteJSON(repDir, results.SummaryFile, summary); err != nil {
					t.Fatal(err)
				}
			}
			if err := Merge(dir, 3); err != nil {
				t.Fatal(err)
			}
			s, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Warnings) != len(tt.warnings) {
				t.Fatalf("merged warnings %q, want %d", s.Warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(s.Warnings[i], w) {
					t.Errorf("warning %d = %q, want it to say %q", i, s.Warnings[i], w)
				}
			}
		})
	}
}
