package procstat

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

func fixture(t *testing.T, dir string) procfs.FS {
	t.Helper()
	fs, err := procfs.NewFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestReadCPU reads a fixed /proc/stat: ticks become seconds (USER_HZ 100),
// Busy leaves out idle and iowait, Kernel is system plus softirq.
func TestReadCPU(t *testing.T) {
	c, err := readCPU(fixture(t, "testdata/proc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"user", c.User, 10}, {"nice", c.Nice, 2}, {"system", c.System, 3}, {"irq", c.IRQ, 0.6}, {"softirq", c.SoftIRQ, 0.7},
		{"busy", c.Busy(), 16.3}, {"kernel", c.Kernel(), 3.7},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestKernelMemory is Slab and VmallocUsed less the objects the slab
// caches hold free, less every object of the conntrack cache and less the
// pages of the per-CPU allocator's chunks' bookkeeping (3 in vmallocinfo).
func TestKernelMemory(t *testing.T) {
	got, err := kernelMemory("testdata/proc")
	want := int64((4000+24)*1024 - (4000-1000)*512 - (2048-2000)*128 - 320*256 - 3*int64(os.Getpagesize()))
	if err != nil || got != want {
		t.Errorf("kernelMemory = %d, %v; want %d", got, err, want)
	}
}

// TestMissingFiles names the file it could not read.
func TestMissingFiles(t *testing.T) {
	if _, err := readCPU(fixture(t, "testdata/noslab")); err == nil {
		t.Error("readCPU without a stat file: no error")
	}
	for _, tc := range []struct{ dir, file string }{
		{"testdata", "meminfo"}, {"testdata/noslab", "slabinfo"}, {"testdata/novmallocinfo", "vmallocinfo"},
	} {
		if _, err := kernelMemory(tc.dir); err == nil || !strings.Contains(err.Error(), tc.file) {
			t.Errorf("kernelMemory of %s (no %s): %v; want an error naming it", tc.dir, tc.file, err)
		}
	}
}
