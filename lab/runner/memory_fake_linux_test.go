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
func TestKernelMemoryOfADisturbedLoadIsNotMeasured(t *testing.T) {
	const mb = 1_000_000
	m := &labfake.Machine{Seed: 7, KernelMemoryReadings: []procstat.MemoryReading{
		{Machine: 100 * mb, Own: 0, HasOwn: true}, {Machine: 105 * mb, Own: 5 * mb, HasOwn: true}, // the first load
		{Machine: 105 * mb, Own: 5 * mb, HasOwn: true}, {Machine: 80 * mb, Own: 10 * mb, HasOwn: true}, // a reload while a namespace went
	}}
	path := filepath.Join(t.TempDir(), "memory.yaml")
	sweep := strings.Replace(fakeSweep, "services: [3, 200, 400]\n  dataplanes: [iptables-legacy, nftables]", "services: [200]\n  dataplanes: [nftables]", 1) +
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
	if got[1] != 5*mb || got[2] != 0 {
		t.Errorf("kernel memory by repetition %v; want 5 MB on the first load and 0 (not measured) on the disturbed reload", got)
	}
	if joined := strings.Join(log, "\n"); !strings.Contains(joined, "nftables at 200 services: kernel memory not measured on this load") {
		t.Errorf("the log does not say why the reload's kernel memory is missing:\n%s", joined)
	}
}
