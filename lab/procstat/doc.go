// Package procstat reads the machine's CPU times (/proc/stat), the CPU
// spent outside a process tree (its processes' stat files), and kernel
// memory (/proc/slabinfo and /proc/meminfo) through
// github.com/prometheus/procfs, and the kernel memory charged to a cgroup
// v1 memory group the process makes and moves into (with lab/cgroup), by
// which a load's growth is told from another process's
// (MemoryReading.Growth). It depends on nothing else of the lab: the
// runner's throughput and memory figures and the packet generator's CPU per
// packet read it, without depending on the doctor (lab/host).
package procstat
