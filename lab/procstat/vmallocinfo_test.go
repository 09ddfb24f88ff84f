package procstat

import (
	"strings"
	"testing"
)

// TestPerCPUChunkBookkeeping counts the pages of the per-CPU allocator's
// vmalloc areas, not its units (no pages=) nor another caller's areas.
func TestPerCPUChunkBookkeeping(t *testing.T) {
	const chunk = "0x1-0x2 2101248 pcpu_create_chunk+0x217/0x230 pages=512 vmalloc N0=512\n" +
		"0x3-0x4   40960 pcpu_create_chunk+0x80/0x230 pages=9 vmalloc N0=9\n" +
		"0x5-0x6   36864 pcpu_create_chunk+0x56/0x230 pages=8 vmalloc N0=8\n" +
		"0x7-0x8   12288 pcpu_create_chunk+0xa0/0x230 pages=2 vmalloc N0=2\n"
	tests := []struct {
		name, info string
		want       int64
	}{
		{"one chunk (this kernel: 531 pages)", chunk, 531 * 4096},
		{"the units themselves", "0x9-0xa 2097152 pcpu_get_vm_areas+0x0/0x1060 vmalloc\n", 0},
		{"another caller", "0xb-0xc 20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n", 0},
		{"a non-inlined helper", "0xd-0xe 12288 pcpu_mem_zalloc+0x30/0x80 pages=2 vmalloc\n", 2 * 4096},
		{"short lines", "0xf-0x10 8192 unpurged vm_area\n0x11-0x12 4096 vm_map_ram\n\n", 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := perCPUChunkBookkeeping(strings.NewReader(tt.info), 4096)
			if err != nil || got != tt.want {
				t.Errorf("perCPUChunkBookkeeping = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

// TestPerCPUChunkBookkeepingBadCount names the line and the field.
func TestPerCPUChunkBookkeepingBadCount(t *testing.T) {
	info := "0x1-0x2 20480 kernel_clone+0xb8/0x400 pages=4 vmalloc\n0x3-0x4 8192 pcpu_create_chunk+0x56/0x230 pages=x8 vmalloc\n"
	_, err := perCPUChunkBookkeeping(strings.NewReader(info), 4096)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), `"x8"`) {
		t.Errorf("perCPUChunkBookkeeping of a bad page count: %v; want an error naming line 2 and \"x8\"", err)
	}
}

func FuzzPerCPUChunkBookkeeping(f *testing.F) {
	f.Add("0x1-0x2 2101248 pcpu_create_chunk+0x217/0x230 pages=512 vmalloc N0=512\n")
	f.Add("0x9-0xa 2097152 pcpu_get_vm_areas+0x0/0x1060 vmalloc\n")
	f.Add("0x3-0x4 8192 pcpu_x pages=-1\n")
	f.Fuzz(func(t *testing.T, info string) {
		n, err := perCPUChunkBookkeeping(strings.NewReader(info), 4096)
		if err == nil && (n < 0 || n%4096 != 0) {
			t.Errorf("perCPUChunkBookkeeping(%q) = %d: not a whole number of pages", info, n)
		}
		if n > 0 && !strings.Contains(info, "pcpu_") {
			t.Errorf("perCPUChunkBookkeeping(%q) = %d without a per-CPU allocator's line", info, n)
		}
	})
}
