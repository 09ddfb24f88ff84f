// Package procstat reads the machine's CPU times (/proc/stat) and kernel
// memory (/proc/slabinfo and /proc/meminfo) through
// github.com/prometheus/procfs. It is a leaf: the runner's throughput and
// memory figures and the packet generator's CPU per packet read it, without
// depending on the doctor (lab/host).
package procstat
