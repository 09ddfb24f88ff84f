package results

import "testing"

// TestObserveCascade: a fair two-way cascade (the first rule at 1/2 took
// half, the last took the rest) reads back as what reached each rule and
// the share it took; counts that cannot be a cascade leave the rules alone.
func TestObserveCascade(t *testing.T) {
	r := FairnessRun{Rules: []Rule{{Index: 1, Probability: 0.5, Packets: 500}, {Index: 2, Probability: 1, Packets: 500}}}
	r.ObserveCascade()
	for i, want := range []struct {
		reached  uint64
		observed float64
	}{{1000, 0.5}, {500, 1}} {
		got := r.Rules[i]
		if got.Reached != want.reached || got.Observed != want.observed || got.ObservedLo > got.Observed || got.ObservedHi < got.Observed {
			t.Errorf("rule %d = %+v, want reached %d observed %v", i+1, got, want.reached, want.observed)
		}
	}
	bad := FairnessRun{Rules: []Rule{{Index: 1, Probability: 2, Packets: 5}}}
	bad.ObserveCascade()
	if bad.Rules[0].Reached != 0 {
		t.Errorf("an impossible cascade was filled: %+v", bad.Rules[0])
	}
}
