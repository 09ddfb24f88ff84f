package pktgen

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MeasureSpec describes a search for the rate where the node saturates.
type MeasureSpec struct {
	// Blast is the blast each step runs; Measure sets its Rate, Packets and
	// Duration.
	Blast Spec
	// Forwarded reads a cumulative count of flows the node forwarded, e.g.
	// SumCounts over one SynCounter per pod.
	Forwarded func() (uint64, error)
	// StartRate is the first offered rate in packets per second; zero
	// means 25,000.
	StartRate float64
	// MaxRate stops the doubling; zero means 3,200,000.
	MaxRate float64
	// StepDuration is how long each step offers its rate; zero means
	// 300 ms. A step sends at least 1,000 packets.
	StepDuration time.Duration
	// MaxLoss is the largest loss a good step may show; zero means 0.05.
	MaxLoss float64
	// Refinements is the number of bisection steps between the last good
	// and the first bad rate; zero means 2, negative means none.
	Refinements int
	// Baseline is how long Measure samples the idle machine's system plus
	// softirq load before the first step, to subtract it from every step;
	// zero means 200 ms, negative means no baseline.
	Baseline time.Duration
	// ConntrackNetns is the node namespace whose conntrack fill is checked
	// before and after each step; empty skips the check.
	ConntrackNetns string
}

// Step is one offered rate of a Measure run.
type Step struct {
	// Offered is the rate asked of the sender, in packets per second.
	Offered float64
	// Blast is what the sender did.
	Blast Result
	// Forwarded counts the flows the pods saw.
	Forwarded uint64
	// FlowsPerSec is Forwarded per second of sending time.
	FlowsPerSec float64
	// Loss is the share of the offered flows the pods did not see: offered
	// is Offered over the sending time, or the packets tried if more.
	Loss float64
	// CPUSeconds is the machine-wide system plus softirq time of the step,
	// less the idle baseline over the step's wall time.
	CPUSeconds float64
	// CPUMicrosPerPacket is CPUSeconds per forwarded flow, in µs.
	CPUMicrosPerPacket float64
}

// Rate is the result of Measure: the knee and every step that found it.
type Rate struct {
	// FlowsPerSec is the knee: the most flows per second forwarded by a
	// step with loss below MaxLoss.
	FlowsPerSec float64
	// Offered is the offered rate of the knee's step.
	Offered float64
	// CPUMicrosPerPacket is the knee step's CPU per forwarded flow.
	CPUMicrosPerPacket float64
	// Saturated is true when some step lost MaxLoss or more; false means
	// MaxRate passed without loss and the knee is only a lower bound.
	Saturated bool
	// Steps are in the order they ran.
	Steps []Step
	// BaselineCores is the idle machine's system plus softirq load, in
	// cores busy, subtracted from every step's CPU time.
	BaselineCores float64
	// Conntrack is the node's conntrack fill before the first step, and
	// ConntrackPeak the largest count seen after a step.
	Conntrack     Conntrack
	ConntrackPeak int
	// ConntrackWarning says when the table could fill or nearly did.
	ConntrackWarning string
}

// Measure offers StartRate, doubles it while the loss stays below MaxLoss,
// bisects between the last good and the first bad rate, and returns the
// knee. It stops early, with the steps so far, when ctx is done.
func Measure(ctx context.Context, spec MeasureSpec) (Rate, error) {
	spec = spec.withDefaults()
	if spec.Forwarded == nil {
		return Rate{}, errors.New("measure: no Forwarded counter")
	}
	if spec.StartRate > spec.MaxRate {
		return Rate{}, fmt.Errorf("measure: start rate %.0f is above max rate %.0f", spec.StartRate, spec.MaxRate)
	}
	m := &measurement{spec: spec}
	if err := m.checkConntrack(); err != nil {
		return m.rate, err
	}
	if spec.Baseline > 0 {
		var err error
		if m.rate.BaselineCores, err = idleCPU(spec.Baseline); err != nil {
			return m.rate, err
		}
	}
	good, bad, err := m.double(ctx)
	for i := 0; err == nil && bad != nil && i < spec.Refinements; i++ {
		good, bad, err = m.bisect(ctx, good, bad)
	}
	if err != nil {
		return m.rate, err
	}
	if good == nil {
		return m.rate, fmt.Errorf("measure: even %.0f pkt/s lost %.0f%% of flows", bad.Offered, 100*bad.Loss)
	}
	return m.rate, nil
}

func (s MeasureSpec) withDefaults() MeasureSpec {
	if s.StartRate == 0 {
		s.StartRate = 25000
	}
	if s.MaxRate == 0 {
		s.MaxRate = 3200000
	}
	if s.StepDuration == 0 {
		s.StepDuration = 300 * time.Millisecond
	}
	if s.MaxLoss == 0 {
		s.MaxLoss = 0.05
	}
	if s.Baseline == 0 {
		s.Baseline = 200 * time.Millisecond
	}
	if s.Refinements == 0 {
		s.Refinements = 2
	}
	s.Blast = s.Blast.withDefaults()
	return s
}
