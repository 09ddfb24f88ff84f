package results

import "testing"

// TestMerge: sections add up; differing kinds make "mixed"; a missing
// section leaves the run incomplete.
func TestMerge(t *testing.T) {
	fair := &Summary{Kind: "fairness", Complete: true, Runs: []FairnessRun{{Dataplane: "nftables"}}, Warnings: []string{"a"}}
	sweep := &Summary{Kind: "sweep", Complete: true, Points: []Point{{Dataplane: "nftables"}}, Warnings: []string{"b"}}
	for _, tc := range []struct {
		name         string
		sections     []*Summary
		kind         string
		complete     bool
		runs, points int
	}{
		{"fairness", []*Summary{fair}, "fairness", true, 1, 0},
		{"both", []*Summary{fair, sweep}, "mixed", true, 1, 1},
		{"missing", []*Summary{fair, nil}, "fairness", false, 1, 0},
		{"incomplete", []*Summary{{Kind: "sweep"}}, "sweep", false, 0, 0},
	} {
		s := &Summary{Complete: true}
		for _, sec := range tc.sections {
			s.Merge(sec)
		}
		if s.Kind != tc.kind || s.Complete != tc.complete || len(s.Runs) != tc.runs || len(s.Points) != tc.points {
			t.Errorf("%s: kind %q complete %v runs %d points %d", tc.name, s.Kind, s.Complete, len(s.Runs), len(s.Points))
		}
	}
}
