package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func TestLoad(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	point := `{"schema":1,"type":"point","point":{"dataplane":"nftables","services":1,"position":"last","p50_us":12}}` + "\n"
	write("newer/results.jsonl", `{"schema":2,"type":"point","point":{}}`+"\n")
	write("older-meta/results.jsonl", point)
	write("older-meta/meta.json", `{"schema":0,"run":"x"}`)
	write("only-meta/results.jsonl", `{"schema":1,"type":"meta","meta":{"schema":1,"run":"x"}}`+"\n")
	write("summary-only/summary.json", `{"schema":1,"kind":"sweep","complete":true,"points":[{"dataplane":"nftables","services":1,"position":"last","p50_us":12}]}`)
	write("no-meta/results.jsonl", point)
	write("truncated/results.jsonl", point+`{"schema":1,"type":"poi`)
	write("beside/results.jsonl", point)
	write("beside/summary.json", `{"schema":1,"run":"svl-b","kind":"sweep","complete":true,"beside_runs":[{"run":"svl-othr","kind":"run","pid":7,"first_seen":"2026-12-05T06:17:41Z","last_seen":"2026-12-05T06:18:00Z"}]}`)
	write("busy/results.jsonl", point)
	write("busy/summary.json", `{"schema":1,"run":"svl-c","kind":"sweep","complete":true,"outside_load":{"seconds":120,"cpus":0.75,"peak_cpus":1.5,"peak_at":"2026-12-05T06:18:00Z"}}`)

	tests := []struct {
		name        string
		path        string
		wantErr     string
		wantPoints  int
		wantWarning string
		wantMeta    string // run id
	}{
		{name: "run directory", path: "testdata/run1", wantPoints: 20, wantMeta: "svl-3639"},
		{name: "results.jsonl file", path: "testdata/run2.jsonl", wantPoints: 20, wantMeta: "svl-164f"},
		{name: "results.jsonl inside a run directory", path: "testdata/split2/results.jsonl", wantMeta: "svl-62c6"},
		{name: "missing directory", path: filepath.Join(tmp, "nope"), wantErr: "no such file or directory"},
		{name: "newer schema", path: filepath.Join(tmp, "newer"), wantErr: "result schema version 2 is newer than this svclab reads (1)"},
		{name: "older meta.json", path: filepath.Join(tmp, "older-meta"), wantErr: "result schema version 0 is not supported"},
		{name: "no measurement", path: filepath.Join(tmp, "only-meta"), wantErr: "no sweep point, fairness or timeline record"},
		{name: "summary only", path: filepath.Join(tmp, "summary-only"), wantPoints: 1, wantWarning: "one sample per point"},
		{name: "no meta", path: filepath.Join(tmp, "no-meta"), wantPoints: 1, wantWarning: "the environment is unknown"},
		{name: "truncated last line", path: filepath.Join(tmp, "truncated"), wantPoints: 1, wantWarning: "the last line is incomplete"},
		{name: "measured beside another run", path: filepath.Join(tmp, "beside"), wantPoints: 1, wantWarning: "run svl-b was measured while other svclab runs shared the machine: svl-othr (run, pid 7, 06:17:41-06:18:00 UTC)"},
		{name: "measured beside other programs", path: filepath.Join(tmp, "busy"), wantPoints: 1, wantWarning: "run svl-c was measured while other programs used 0.75 CPUs on average over 120 s (1.50 at most over one poll, ending 06:18:00 UTC)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := Load(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("err = %v, want %q naming %s", err, tt.wantErr, tt.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := countPoints(run.Records); tt.wantPoints > 0 && got != tt.wantPoints {
				t.Errorf("%d points, want %d", got, tt.wantPoints)
			}
			if tt.wantWarning != "" && !strings.Contains(strings.Join(run.Warnings, "\n"), tt.wantWarning) {
				t.Errorf("warnings %q, want %q", run.Warnings, tt.wantWarning)
			}
			if tt.wantMeta != "" && (run.Meta == nil || run.Meta.Run != tt.wantMeta) {
				t.Errorf("meta %+v, want run %s", run.Meta, tt.wantMeta)
			}
		})
	}
}

func countPoints(records []results.Record) int {
	n := 0
	for _, r := range records {
		if r.Type == results.TypePoint {
			n++
		}
	}
	return n
}

func TestEnvironmentWarnings(t *testing.T) {
	tests := []struct {
		name   string
		change func(*results.Meta)
		want   string // "" for no warning
	}{
		{"same", func(*results.Meta) {}, ""},
		{"kernel", func(m *results.Meta) { m.Kernel = "6.12.0" }, `kernel "6.1.0" in base, "6.12.0" in new`},
		{"guest kernel", func(m *results.Meta) { m.GuestKernel = "6.1.0-uml" }, `guest kernel "" in base, "6.1.0-uml" in new`},
		{"CPU", func(m *results.Meta) { m.CPU = "Other CPU" }, `CPU "Test CPU" in base, "Other CPU" in new`},
		{"CPU count", func(m *results.Meta) { m.CPUs = 8 }, `CPU count "2" in base, "8" in new`},
		{"svclab version", func(m *results.Meta) { m.SvclabVersion = "v0.2.0" }, `svclab version "dev" in base, "v0.2.0" in new`},
		{"iptables backend", func(m *results.Meta) { m.Tools["iptables-nft"] = "iptables v1.8.9 (legacy)" },
			`iptables-nft "iptables v1.8.9 (nf_tables)" in base, "iptables v1.8.9 (legacy)" in new`},
		{"tool missing", func(m *results.Meta) { delete(m.Tools, "nft") }, `nft "nftables v1.0.6" in base, "(not recorded)" in new`},
		{"scenario", func(m *results.Meta) { m.ScenarioHash = "def" }, "the scenarios differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, new := testMeta(), testMeta()
			tt.change(new)
			got := environmentWarnings(base, new)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("warnings %q, want one with %q", got, tt.want)
			}
		})
	}
	if got := environmentWarnings(nil, testMeta()); len(got) != 1 || !strings.Contains(got[0], "base run does not record") {
		t.Errorf("nil base meta: %q", got)
	}
}
