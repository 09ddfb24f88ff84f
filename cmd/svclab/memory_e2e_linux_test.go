package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// reloadSweep loads iptables-nft's and nftables' rules three times per
// point (syncEachRepetition): a flush, then the same rules again.
const reloadSweep = `name: memory-reload
sweep:
  services: [5000]
  dataplanes: [iptables-nft, nftables]
  positions: [last]
  endpointsPerService: 1
  connections: 50
  warmup: 10
  repetitions: 3
  throughputConnections: 100
  seed: 5
  syncEachRepetition: true
`

// TestKernelMemoryIsTheSameOnEveryReload runs a sweep that flushes and
// reloads each point's rules every repetition: the kernel memory each load
// measures must not depend on whether the rules were loaded before. Measured
// as the growth of /proc/meminfo's Slab it did: the reloads reuse the
// objects the flush freed, whose slab pages the allocator keeps, and
// iptables-nft's 5,000 Services measured 18.5 MB, then 12.1 and 12.3, and
// nftables' 5.2, then 3.8 and 3.2 (docs/measurements.md). The first load
// into a fresh namespace may add a few hundred kilobytes the kernel
// allocates once per namespace.
func TestKernelMemoryIsTheSameOnEveryReload(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "memory-reload.yaml")
	if err := os.WriteFile(sc, []byte(reloadSweep), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if _, stderr, code := runSvclab(t, "run", sc, "--out", out, "--progress", "none"); code != 0 {
		t.Fatalf("svclab run exited %d:\n%s", code, stderr)
	}
	recs, _, err := results.ReadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	loads := map[string][]results.Point{}
	for _, r := range recs {
		if p := r.Point; p != nil {
			key := fmt.Sprintf("%s at %d services", p.Dataplane, p.Services)
			loads[key] = append(loads[key], *p)
		}
	}
	if len(loads) != 2 {
		t.Fatalf("%d points, want 2: %v", len(loads), loads)
	}
	for key, points := range loads {
		lo, hi := points[0].KernelMemBytes, points[0].KernelMemBytes
		for _, p := range points {
			lo, hi = min(lo, p.KernelMemBytes), max(hi, p.KernelMemBytes)
		}
		// At least 300 bytes a rule (they take about 700 to 1,000), and
		// every load within 10% and half a megabyte of the largest.
		if floor := int64(300 * points[0].Rules); lo < floor || float64(lo) < 0.9*float64(hi)-0.5e6 {
			t.Errorf("%s: %d loads measured %d to %d bytes of kernel memory for %d rules; want each above %d and within 10%% + 0.5 MB of the largest",
				key, len(points), lo, hi, points[0].Rules, floor)
		}
	}
}
