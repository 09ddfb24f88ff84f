package main

import (
	"strings"
	"testing"
)

// TestHelpScenario: the topic the error hints name exists and documents
// the schema (sim/scenario's test checks that every field is in it).
func TestHelpScenario(t *testing.T) {
	stdout, stderr, code := runCommand(t, "help", "scenario")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if again, _, code := runCommand(t, "scenario", "--help"); code != 0 || again != stdout {
		t.Fatalf("svclab scenario --help: exit %d, or other text than svclab help scenario", code)
	}
	for _, want := range []string{"fairness.connections  (int, default 20000)", "limits: 1..10000000", "services[].ports[].name", "lab.allowLargeLabs", "8 MiB"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("svclab help scenario lacks %q", want)
		}
	}
}
