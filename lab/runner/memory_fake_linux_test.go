package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// TestKernelMemoryOfADisturbedLoadIsNotMeasured: a reload during which the
// machine's kernel memory changed by far more than the run's own charges
// records no kernel memory (0, which every summary reads as not measured)
// and says why in the run's log; the undisturbed load records the growth.
// IPVS, whose objects the kernel does not charge to the run's group, is
// not checked: its growth is recorded as it is.
func TestKernelMemoryOfADisturbedLoadIsNotMeasured(t *testing.T) {
	const mb = 1_000_000
	readings := []procstat.MemoryReading{
		{Machine: 100 * mb, Own: 0, HasOwn: true}, {Machine: 105 * mb, Own: 5 * mb, HasOwn: true}, // the first load
		{Machine: 105 * mb, Own: 5 * mb, HasOwn: true}, {Machine: 125 * mb, Own: 6 * mb, HasOwn: true}, // a reload: +20 MB machine-wide, +1 MB charged
	}
	tests := []struct {
		dataplane string
		reload    int64 // the reload's kernel memory
		logged    bool
	}{
		{"nftables", 0, true},
		{"ipvs", 20 * mb, false},
	}
	for _, tt := range tests {
		t.Run(tt.dataplane, func(t *testing.T) {
			m := &labfake.Machine{Seed: 7, KernelMemoryReadings: readings}
			got, log := runMemorySweep(t, m, tt.dataplane)
			if got[1] != 5*mb || got[2] != tt.reload {
				t.Errorf("kernel memory by repetition %v; want 5 MB on the first load and %d on the reload", got, tt.reload)
			}
			said := strings.Contains(log, tt.dataplane+" at 200 services: kernel memory not measured on this load")
			if said != tt.logged {
				t.Errorf("the log says the reload's kernel memory is not measured: %v, want %v:\n%s", said, tt.logged, log)
			}
		})
	}
}

// runMemorySweep runs one dataplane at 200 Services, reloaded twice, on m,
// and returns each repetition's kernel memory and the run's log.
func runMemorySweep(t *testing.T, m *labfake.Machine, dp string) (map[int]int64, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.yaml")
	sweep := strings.Replace(fakeSweep, "services: [3, 200, 400]\n  dataplanes: [iptables-legacy, nftables]", "services: [200]\n  dataplanes: ["+dp+"]", 1) +
		"  syncEachRepetition: true\n"
	if err := os.WriteFile(path, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log []string
	opts := runner.Options{OutDir: filepath.Join(t.TempDir(), "run"), Prefix: "svl-fake", Machine: m,
		Log: func(format string, args ...any) {
			mu.Lock()
			log = append(log, fmt.Sprintf(format, args...))
			mu.Unlock()
		}}
	out, err := runner.Run(t.Context(), sc, runner.RunOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]int64{}
	for _, r := range records(t, out.Dir)[results.TypePoint] {
		got[r.Point.Repetition] = r.Point.KernelMemBytes
	}
	return got, strings.Join(log, "\n")
}
