package scenario

import (
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func TestSweepModelPlacesTargets(t *testing.T) {
	sc, err := Parse("t", []byte("sweep: {services: [10]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ n, first, middle, last int }{{3, 0, 1, 2}, {10, 0, 4, 9}, {1001, 0, 500, 1000}}
	for _, tt := range tests {
		m, _, err := sc.SweepModel(tt.n, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.Services.Len() != tt.n {
			t.Fatalf("N=%d: model has %d services", tt.n, m.Services.Len())
		}
		for name, want := range map[string]int{"target-first": tt.first, "target-middle": tt.middle, "target-last": tt.last} {
			if got := model.IndexOf(m.Services, name); got != want {
				t.Errorf("N=%d: %s at %d, want %d", tt.n, name, got, want)
			}
		}
	}
}
