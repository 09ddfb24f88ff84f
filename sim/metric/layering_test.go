package metric

import (
	"go/build"
	"path/filepath"
	"slices"
	"testing"
)

// TestNoLayeringInversions: packages that only aggregate or record do not
// import the plotting, reporting or rendering packages (issue 11: the
// runner took medians through report → plot; cost imported plot and
// report; results imported render).
func TestNoLayeringInversions(t *testing.T) {
	const mod = "github.com/svclab/svclab/"
	tests := []struct {
		dir       string
		forbidden []string
	}{
		{"sim/results", []string{"sim/render", "sim/plot", "sim/report"}},
		{"sim/cost", []string{"sim/plot", "sim/report"}},
		{"sim/metric", []string{"sim/plot", "sim/report", "sim/compare"}},
		{"sim/compare", []string{"sim/report"}},
		{"lab/runner", []string{"sim/report", "sim/plot"}},
		// The sections a run measures never reach back into the runner.
		{"lab/sweep", []string{"lab/runner", "sim/report", "sim/plot"}},
		{"lab/fairness", []string{"lab/runner", "sim/report", "sim/plot"}},
		// Dataplane constructors register with lab/apply; they never reach
		// back into the runner, and lab/apply knows none of them.
		{"lab/ebpf", []string{"lab/runner"}},
		{"lab/kubeproxy", []string{"lab/runner"}},
		{"lab/apply", []string{"lab/runner", "lab/ebpf", "lab/kubeproxy"}},
	}
	for _, tt := range tests {
		ctx := build.Default
		ctx.GOOS = "linux"
		pkg, err := ctx.ImportDir(filepath.Join("..", "..", tt.dir), 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.dir, err)
		}
		for _, f := range tt.forbidden {
			if slices.Contains(pkg.Imports, mod+f) {
				t.Errorf("%s imports %s", tt.dir, f)
			}
		}
	}
}
