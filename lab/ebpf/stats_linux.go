package ebpf

import (
	"fmt"
	"io"
	"time"

	cebpf "github.com/cilium/ebpf"
)

// ProgramStat is a program's kernel run-time statistics: how often it ran
// and for how long in total (counted only while run-time stats are on).
type ProgramStat struct {
	Runs    uint64
	Runtime time.Duration
}

// PerRun is the mean time of one run, 0 when it never ran.
func (s ProgramStat) PerRun() time.Duration {
	if s.Runs == 0 {
		return 0
	}
	return s.Runtime / time.Duration(s.Runs)
}

// Sub is the statistics accumulated since before.
func (s ProgramStat) Sub(before ProgramStat) ProgramStat {
	return ProgramStat{Runs: s.Runs - before.Runs, Runtime: s.Runtime - before.Runtime}
}

// EnableRunTimeStats turns on the kernel's BPF run-time statistics
// (BPF_ENABLE_STATS) until the returned closer is closed. They are
// kernel-wide and cost every BPF program on the machine a little while on:
// hold them only around a measurement, and always close.
func EnableRunTimeStats() (io.Closer, error) {
	c, err := cebpf.EnableStats(0) // BPF_STATS_RUN_TIME
	if err != nil {
		return nil, fmt.Errorf("ebpf: enable BPF run-time stats: %w", err)
	}
	return c, nil
}

// programStats reads the statistics of the named programs.
func programStats(progs map[string]*cebpf.Program) (map[string]ProgramStat, error) {
	out := map[string]ProgramStat{}
	for name, p := range progs {
		s, err := p.Stats()
		if err != nil {
			return nil, fmt.Errorf("ebpf: stats of program %s: %w", name, err)
		}
		out[name] = ProgramStat{Runs: s.RunCount, Runtime: s.Runtime}
	}
	return out, nil
}

// ProgramStats are the run-time statistics of svc_ingress and svc_egress:
// the dataplane's CPU cost per packet (while EnableRunTimeStats is held).
func (d *TC) ProgramStats() (map[string]ProgramStat, error) {
	return programStats(map[string]*cebpf.Program{svclbProgSvcIngress: d.lb.objs.SvcIngress, svclbProgSvcEgress: d.lb.objs.SvcEgress})
}

// ProgramStats are the run-time statistics of sock_connect4: the cost per
// connect (while EnableRunTimeStats is held).
func (d *Sock) ProgramStats() (map[string]ProgramStat, error) {
	return programStats(map[string]*cebpf.Program{svclbProgSockConnect4: d.lb.objs.SockConnect4})
}
