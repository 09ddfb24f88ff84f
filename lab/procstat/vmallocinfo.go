package procstat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// perCPUChunkBookkeeping is the memory, in bytes, of the vmalloc areas in
// /proc/vmallocinfo (read from r) that the per-CPU allocator made for its
// chunks' own bookkeeping: the areas whose caller is one of its functions
// (pcpu_create_chunk, pcpu_mem_zalloc: "pcpu_" names) and that hold pages
// ("pages=N", counted in meminfo's VmallocUsed). The per-CPU units
// themselves (pcpu_get_vm_areas, no pages= field) are meminfo's Percpu, not
// VmallocUsed, and are not counted. pageSize is the machine's page size.
//
// On this 2-CPU machine each chunk (1 MiB a CPU) carries 531 pages of it: its
// allocation and boundary maps and block metadata, and 512 pages of
// memory-cgroup object pointers, 2 MiB, one for every 4 bytes of the unit
// (docs/measurements.md, "Kernel memory").
func perCPUChunkBookkeeping(r io.Reader, pageSize int64) (int64, error) {
	var pages int64
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || !strings.HasPrefix(fields[2], "pcpu_") {
			continue
		}
		n, found, err := areaPages(fields[3:])
		if err != nil {
			return 0, fmt.Errorf("line %d (%s): %w", line, fields[2], err)
		}
		if found {
			pages += n
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return pages * pageSize, nil
}

// maxAreaPages is more pages than any vmalloc area has (4 PiB of 4 KiB
// pages); a larger count is a misread line.
const maxAreaPages = 1 << 40

// areaPages is the N of a vmallocinfo line's "pages=N" field, among the
// fields after its caller; found is false when the line has none.
func areaPages(fields []string) (n int64, found bool, err error) {
	for _, f := range fields {
		v, ok := strings.CutPrefix(f, "pages=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > maxAreaPages {
			return 0, false, fmt.Errorf("pages=%q is not a page count", v)
		}
		return n, true, nil
	}
	return 0, false, nil
}
