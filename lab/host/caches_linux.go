package host

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Cache is one CPU cache level of cpu0.
type Cache struct {
	Level int
	Type  string // Data, Instruction or Unified
	Bytes int64
}

// CPUCaches reads cpu0's caches from sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}); a guest
// whose sysfs lacks them falls back to /proc/cpuinfo's "cache size" (the
// L2 on x86), and to nil when neither says.
func CPUCaches() []Cache {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	var out []Cache
	for _, d := range dirs {
		level, err1 := strconv.Atoi(readTrim(filepath.Join(d, "level")))
		size, ok := parseCacheSize(readTrim(filepath.Join(d, "size")))
		if err1 != nil || !ok {
			continue
		}
		out = append(out, Cache{Level: level, Type: readTrim(filepath.Join(d, "type")), Bytes: size})
	}
	if len(out) > 0 {
		return out
	}
	if size, ok := cpuinfoCacheSize(); ok {
		return []Cache{{Level: 2, Type: "Unified", Bytes: size}}
	}
	return nil
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseCacheSize reads "48K", "1024K", "32M" or "1024 KB".
func parseCacheSize(s string) (int64, bool) {
	s = strings.TrimSuffix(strings.ReplaceAll(s, " ", ""), "B")
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

func cpuinfoCacheSize() (int64, bool) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "cache size" {
			return parseCacheSize(strings.TrimSpace(v))
		}
	}
	return 0, false
}
