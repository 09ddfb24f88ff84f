package runner

import (
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/dataplane"
)

// TestEveryDataplaneHasAConstructor: every dataplane sim/dataplane lists
// can be opened in a lab; a new one whose package is not linked in fails
// here, not in a privileged run.
func TestEveryDataplaneHasAConstructor(t *testing.T) {
	got := apply.Registered()
	for _, d := range dataplane.All() {
		if !slices.Contains(got, d.Name) {
			t.Errorf("dataplane %s has no constructor: register one with apply.Register and import its package in dataplanes_linux.go", d.Name)
		}
	}
}
