package scenario

import (
	"strings"
	"testing"
)

const runnable = base + "fairness: {dataplanes: [nftables], connections: 50}\nsweep: {services: [10]}\n"

func TestOverrides(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(runnable))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		do      func(*Scenario) (*Scenario, error)
		wantErr string
		check   func(*Scenario) bool
	}{
		{"dataplanes", func(s *Scenario) (*Scenario, error) { return s.WithDataplanes([]string{"ipvs", "iptables-nft"}) }, "",
			func(s *Scenario) bool {
				return strings.Join(s.Fairness.Dataplanes, ",") == "ipvs,iptables-nft" && strings.Join(s.Sweep.Dataplanes, ",") == "ipvs,iptables-nft"
			}},
		{"empty dataplane list", func(s *Scenario) (*Scenario, error) { return s.WithDataplanes(nil) }, "no dataplane", nil},
		{"empty dataplane name", func(s *Scenario) (*Scenario, error) { return s.WithDataplanes([]string{""}) }, "unknown dataplane", nil},
		{"unknown dataplane", func(s *Scenario) (*Scenario, error) { return s.WithDataplanes([]string{"pf"}) }, "unknown dataplane", nil},
		{"connections", func(s *Scenario) (*Scenario, error) { return s.WithConnections(7) }, "",
			func(s *Scenario) bool { return s.Fairness.Connections == 7 && s.Sweep.Connections == 7 }},
		{"zero connections", func(s *Scenario) (*Scenario, error) { return s.WithConnections(0) }, "out of range", nil},
		{"fairness for up", func(s *Scenario) (*Scenario, error) { return s.WithFairness("iptables-legacy") }, "",
			func(s *Scenario) bool {
				return s.Fairness.Dataplanes[0] == "iptables-legacy" && s.Fairness.Connections == 20000
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.do(sc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Fatalf("override not applied: fairness %+v sweep %+v", got.Fairness, got.Sweep)
			}
			if got.Hash() == sc.Hash() {
				t.Fatal("an overridden scenario has the file's hash")
			}
			if sc.Fairness.Connections != 50 || sc.Fairness.Dataplanes[0] != "nftables" {
				t.Fatal("the override changed the original scenario")
			}
		})
	}
}

func TestOverrideNeedsARunSection(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.WithConnections(5); err == nil || !strings.Contains(err.Error(), "neither a fairness") {
		t.Fatalf("err = %v", err)
	}
}

func TestWithRepetitions(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(runnable))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n       int
		wantErr string
	}{{1, ""}, {9, ""}, {0, "out of range"}}
	for _, tt := range tests {
		got, err := sc.WithRepetitions(tt.n)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("WithRepetitions(%d) err = %v, want %q", tt.n, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("WithRepetitions(%d): %v", tt.n, err)
		}
		if got.Sweep.Repetitions != tt.n || got.Hash() != sc.Hash() {
			t.Errorf("WithRepetitions(%d): %d repetitions, hash kept %v", tt.n, got.Sweep.Repetitions, got.Hash() == sc.Hash())
		}
	}
	fairnessOnly, err := Parse("s.yaml", []byte(base+"fairness: {dataplanes: [nftables]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fairnessOnly.WithRepetitions(2); err == nil || !strings.Contains(err.Error(), "no sweep") {
		t.Errorf("WithRepetitions of a fairness-only scenario: err = %v", err)
	}
}

// TestTimelineDataplanesOverride: --dataplane picks a timeline's
// dataplanes as it picks a sweep's.
func TestTimelineDataplanesOverride(t *testing.T) {
	sc, err := Load("cold-start")
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.WithDataplanes([]string{"nftables"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Timeline.Dataplanes, ",") != "nftables" || len(sc.Timeline.Dataplanes) != 2 {
		t.Errorf("timeline dataplanes %v (the file's now %v)", got.Timeline.Dataplanes, sc.Timeline.Dataplanes)
	}
	if got.Hash() == sc.Hash() {
		t.Error("an overridden timeline has the file's hash")
	}
}
