package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func TestComparable(t *testing.T) {
	with := func(edit func(m *results.Meta)) *Run {
		m := testMeta()
		edit(m)
		return &Run{Path: "new", Meta: m}
	}
	base := &Run{Path: "base", Meta: testMeta()}
	tests := []struct {
		name string
		new  *Run
		want string // "" for comparable
	}{
		{"same scenario and CPU", with(func(m *results.Meta) { m.Kernel = "6.18" }), ""},
		{"other scenario", with(func(m *results.Meta) { m.Scenario = "sweep-quick" }), "scenario synthetic"},
		{"same name, edited file", with(func(m *results.Meta) { m.ScenarioHash = "def" }), "hash def"},
		{"other CPU model", with(func(m *results.Meta) { m.CPU = "AMD EPYC" }), `CPU "Test CPU" in base, "AMD EPYC" in new`},
		{"no meta: cannot be checked", &Run{Path: "new"}, "the new run has no meta record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Comparable(base, tt.new)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--allow-env-mismatch") {
				t.Fatalf("err = %v, want ErrNotComparable naming %q and the flag", err, tt.want)
			}
		})
	}
}
