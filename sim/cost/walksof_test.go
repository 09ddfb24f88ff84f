package cost

import (
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestWithWalksOf: the calibration's copy carries the run's walks where the
// run timed them, its own elsewhere, and names what it took; the
// calibration itself is untouched; a run that timed none gives the
// calibration back.
func TestWithWalksOf(t *testing.T) {
	calList := []results.ChainListStep{{Chains: 64000, NsPerStep: 46}}
	calDump := []results.ChainListStep{{Chains: 12515, NsPerStep: 9}}
	calSets := []results.AnonymousSetStep{{Length: 100376, NsPerStep: 13.7}}
	runList := []results.ChainListStep{{Chains: 64000, NsPerStep: 89}}
	runSets := []results.AnonymousSetStep{{Length: 100376, NsPerStep: 67.1}}
	tests := []struct {
		name      string
		run       Run
		wantTaken []string
		wantList  []results.ChainListStep
		wantSets  []results.AnonymousSetStep
	}{
		{"none timed", Run{}, nil, calList, calSets},
		{"chain list", Run{ChainListWalk: runList, ChainListSwing: "swing"}, []string{"chain-list walk"}, runList, calSets},
		{"chain list and sets", Run{ChainListWalk: runList, AnonymousSetWalk: runSets}, []string{"chain-list walk", "anonymous-set walks"}, runList, runSets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal := &Run{Source: Source{Name: "cal"}, ChainListWalk: calList, ChainDumpWalk: calDump, AnonymousSetWalk: calSets}
			got, taken := cal.WithWalksOf(&tt.run)
			if !slices.Equal(taken, tt.wantTaken) || !slices.Equal(got.ChainListWalk, tt.wantList) || !slices.Equal(got.AnonymousSetWalk, tt.wantSets) ||
				!slices.Equal(got.ChainDumpWalk, calDump) {
				t.Errorf("took %q: list %v, sets %v, dump %v", taken, got.ChainListWalk, got.AnonymousSetWalk, got.ChainDumpWalk)
			}
			if len(taken) == 0 && got != cal {
				t.Error("took nothing but copied the calibration")
			}
			if len(taken) > 0 && got.ChainListSwing != tt.run.ChainListSwing {
				t.Errorf("swing warning %q; want the run's %q", got.ChainListSwing, tt.run.ChainListSwing)
			}
			if !slices.Equal(cal.ChainListWalk, calList) || !slices.Equal(cal.AnonymousSetWalk, calSets) || cal.ChainListSwing != "" {
				t.Error("the calibration itself changed")
			}
		})
	}
}
