package pktgen

import "testing"

// TestSaturatedFromStart takes the best step of a search that lost flows at
// every rate as the knee, and fails when no step forwarded any.
func TestSaturatedFromStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		steps   []Step
		ok      bool
		best    float64
		offered float64
	}{
		{"best of three", []Step{{Offered: 1000, FlowsPerSec: 700}, {Offered: 2000, FlowsPerSec: 900}, {Offered: 4000, FlowsPerSec: 800}}, true, 900, 2000},
		{"nothing forwarded", []Step{{Offered: 1000}}, false, 0, 0},
		{"no steps", nil, false, 0, 0},
	} {
		r := Rate{Steps: tc.steps}
		ok := saturatedFromStart(&r)
		if ok != tc.ok || r.FlowsPerSec != tc.best || r.Offered != tc.offered || !r.Saturated {
			t.Errorf("%s: ok %v, rate %+v", tc.name, ok, r)
		}
	}
}
