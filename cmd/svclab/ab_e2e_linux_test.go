package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

const abTinyScenario = `name: ab-tiny
sweep:
  services: [1, 50]
  dataplanes: [nftables]
  positions: [last]
  connections: 200
  warmup: 20
  repetitions: 8
  throughputConnections: 100
  seed: 1
gate:
  - metric: p10_us
    threshold: 5
`

// TestABCatchesAPlantedSlowdown runs svclab ab on a tiny scenario with a
// large planted slowdown on the new side (3000 never-matching rules, tens
// of microseconds per connection): the verdict is REGRESSION (exit 1) on
// p10_us, both sides are ordinary run directories svclab compare reads,
// --from analyses the directory again without running, and the plant
// left nothing on the host.
func TestABCatchesAPlantedSlowdown(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "ab-tiny.yaml")
	if err := os.WriteFile(sc, []byte(abTinyScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ab")
	stdout, stderr, code := runSvclab(t, "ab", sc, "--out", out, "--new-plant-rules", "3000", "--seed", "7")
	if code != 1 || !strings.Contains(stdout, "REGRESSION p10_us nftables 50 last") {
		t.Fatalf("svclab ab exited %d, want 1 with a p10_us regression\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"8 repetitions per side", "--plant-rules 3000", "power:", "reported (not gated)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if _, stderr, code := runSvclab(t, "compare", filepath.Join(out, "base"), filepath.Join(out, "new")); code != 0 {
		t.Errorf("svclab compare of the two sides exited %d: %s", code, stderr)
	}
	stdout, _, code = runSvclab(t, "ab", "--from", out, "--format", "json")
	var doc struct {
		Outcome string `json:"outcome"`
		Plan    struct {
			Order [][]string `json:"order"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 || doc.Outcome != "REGRESSION" || len(doc.Plan.Order) != 8 {
		t.Errorf("ab --from --format json: exit %d, %v, %+v\n%s", code, err, doc, stdout)
	}
	if tables, err := exec.Command("nft", "list", "tables").Output(); err == nil && strings.Contains(string(tables), render.PlantTable) {
		t.Errorf("the host has the plant's table:\n%s", tables)
	}
}

func TestABRefusesBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", []string{"ab"}, "give one scenario, or --from DIR"},
		{"both", []string{"ab", "ci-ab", "--from", "x"}, "give one scenario, or --from DIR"},
		{"bad format", []string{"ab", "--from", "x", "--format", "csv"}, "want text, markdown or json"},
		{"threshold of a metric not gated", []string{"ab", "ci-ab", "--threshold", "p99_us=5"}, "no primary metric is called that"},
		{"not an A/B directory", []string{"ab", "--from", os.TempDir()}, "A/B plan"},
		{"fairness-only scenario", []string{"ab", "split-2"}, "has no sweep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runSvclab(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
