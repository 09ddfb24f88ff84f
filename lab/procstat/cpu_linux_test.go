package procstat

import (
	"math"
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

// TestKernelMemory sums Slab and VmallocUsed; a meminfo without them is 0.
func TestKernelMemory(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want int64
	}{{"testdata/proc", 1024 * 1024}, {"testdata/noslab", 0}} {
		got, err := kernelMemory(fixture(t, tc.dir))
		if err != nil || got != tc.want {
			t.Errorf("%s: kernelMemory = %d, %v; want %d", tc.dir, got, err, tc.want)
		}
	}
}

// TestMissingFiles names the file it could not read.
func TestMissingFiles(t *testing.T) {
	if _, err := readCPU(fixture(t, "testdata/noslab")); err == nil {
		t.Error("readCPU without a stat file: no error")
	}
	if _, err := kernelMemory(fixture(t, "testdata")); err == nil {
		t.Error("kernelMemory without a meminfo file: no error")
	}
}
