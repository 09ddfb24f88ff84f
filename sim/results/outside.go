package results

import (
	"fmt"
	"strings"
)

// OutsideLoad is the CPU the machine spent outside a run's own processes
// and the kernel's threads while the run measured: other programs (a
// build, a browser, another benchmark), which need no svclab lease to
// share the CPUs (BesideRun covers those that hold one).
type OutsideLoad struct {
	// Seconds is the wall time watched: from the run's start to its
	// summary.
	Seconds float64 `json:"seconds"`
	// CPUs is the mean CPU used outside the run over Seconds, in CPUs (1
	// is one CPU busy all the time).
	CPUs float64 `json:"cpus"`
	// PeakCPUs is the most used outside the run over one poll (about two
	// seconds), and PeakAt when that poll ended (RFC 3339, UTC).
	PeakCPUs float64 `json:"peak_cpus"`
	PeakAt   string  `json:"peak_at,omitempty"`
	// StealCPUs is the mean CPU time the hypervisor gave to other guests
	// while this machine's vCPUs wanted it (zero where it does not say).
	StealCPUs float64 `json:"steal_cpus,omitempty"`
}

// Outside load at or above these is warned of: a mean of a tenth of a CPU
// or one poll with half a CPU busy outside the run (15 and 33 times the
// most this project's VM showed with nothing else running,
// results/outside-load), or steal of a twentieth of a CPU.
const (
	OutsideWarnMeanCPUs  = 0.1
	OutsideWarnPeakCPUs  = 0.5
	OutsideWarnStealCPUs = 0.05
)

// OutsideWarning is the warning that run was measured beside load outside
// it (a summary's, a calibration's, a comparison's); "" when o is nil or
// below the thresholds.
func OutsideWarning(run string, o *OutsideLoad) string {
	if o == nil {
		return ""
	}
	var what []string
	if o.CPUs >= OutsideWarnMeanCPUs || o.PeakCPUs >= OutsideWarnPeakCPUs {
		what = append(what, fmt.Sprintf("other programs used %.2f CPUs on average over %.0f s (%.2f at most over one poll, ending %s UTC)",
			o.CPUs, o.Seconds, o.PeakCPUs, clockOf(o.PeakAt)))
	}
	if o.StealCPUs >= OutsideWarnStealCPUs {
		what = append(what, fmt.Sprintf("the hypervisor took %.2f CPUs on average from this machine (steal)", o.StealCPUs))
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("run %s was measured while %s, outside svclab's own processes (its latencies, CPU and sync times may be slower and more scattered than the machine's alone: measure again with the machine to itself)",
		run, strings.Join(what, " and "))
}

// SharingWarnings are s's warnings that the machine was shared while it
// measured: other svclab runs (BesideRuns) and load outside the run
// (OutsideLoad). Reports, calibrations and comparisons repeat them.
func (s *Summary) SharingWarnings() []string {
	var out []string
	for _, w := range []string{BesideWarning(s.Run, s.BesideRuns), OutsideWarning(s.Run, s.OutsideLoad)} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// PoolOutsideLoads is the load outside runs watched one after another (an
// A/B side's repetitions) as one: the means weighted by the spans, the
// highest poll; nil when none was watched.
func PoolOutsideLoads(loads []*OutsideLoad) *OutsideLoad {
	var pooled OutsideLoad
	for _, l := range loads {
		if l == nil {
			continue
		}
		pooled.CPUs += l.CPUs * l.Seconds
		pooled.StealCPUs += l.StealCPUs * l.Seconds
		pooled.Seconds += l.Seconds
		if l.PeakCPUs > pooled.PeakCPUs || pooled.PeakAt == "" {
			pooled.PeakCPUs, pooled.PeakAt = l.PeakCPUs, l.PeakAt
		}
	}
	if pooled.Seconds <= 0 {
		return nil
	}
	pooled.CPUs /= pooled.Seconds
	pooled.StealCPUs /= pooled.Seconds
	return &pooled
}
