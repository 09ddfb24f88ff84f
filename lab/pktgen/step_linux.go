package pktgen

import (
	"context"
	"fmt"
	"time"
)

// measurement is the state of one Measure run.
type measurement struct {
	spec MeasureSpec
	rate Rate
}

// double runs steps from StartRate, doubling while they are good; it
// returns the last good step (nil if none) and the first bad one (nil if
// MaxRate passed without loss).
func (m *measurement) double(ctx context.Context) (good, bad *Step, err error) {
	for offered := m.spec.StartRate; offered <= m.spec.MaxRate; offered *= 2 {
		step, err := m.run(ctx, offered)
		if err != nil {
			return good, bad, err
		}
		if step.Loss >= m.spec.MaxLoss {
			return good, step, nil
		}
		good = step
	}
	return good, nil, nil
}

// bisect runs the rate halfway between good (or zero) and bad and returns
// the narrowed pair.
func (m *measurement) bisect(ctx context.Context, good, bad *Step) (*Step, *Step, error) {
	low := 0.0
	if good != nil {
		low = good.Offered
	}
	step, err := m.run(ctx, (low+bad.Offered)/2)
	if err != nil {
		return good, bad, err
	}
	if step.Loss >= m.spec.MaxLoss {
		return good, step, nil
	}
	return step, bad, nil
}

// run offers one rate for StepDuration, records the step and returns it.
func (m *measurement) run(ctx context.Context, offered float64) (*Step, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	blast := m.spec.Blast
	blast.Rate = offered
	blast.Packets = max(1000, int(offered*m.spec.StepDuration.Seconds()))
	blast.Duration = 3 * m.spec.StepDuration // a sender that falls far behind is cut off
	fwd0, err := m.spec.Forwarded()
	if err != nil {
		return nil, err
	}
	cpu0, err := readCPU()
	if err != nil {
		return nil, err
	}
	res, err := Blast(ctx, blast)
	if err != nil {
		return nil, fmt.Errorf("step at %.0f pkt/s: %w", offered, err)
	}
	fwd1, err := m.settle()
	if err != nil {
		return nil, err
	}
	cpu1, err := readCPU()
	if err != nil {
		return nil, err
	}
	step := newStep(offered, res, fwd1-fwd0, cpu1.since(cpu0, m.rate.BaselineCores))
	m.record(step)
	return &m.rate.Steps[len(m.rate.Steps)-1], m.watchConntrack()
}

// newStep derives a step's rates from its raw readings.
func newStep(offered float64, res Result, forwarded uint64, cpu float64) Step {
	s := Step{Offered: offered, Blast: res, Forwarded: forwarded, CPUSeconds: cpu}
	if secs := res.Elapsed.Seconds(); secs > 0 {
		s.FlowsPerSec = float64(forwarded) / secs
	}
	expected := max(float64(res.Sent+res.Dropped), offered*res.Elapsed.Seconds())
	if expected > 0 {
		s.Loss = max(0, 1-float64(forwarded)/expected)
	}
	if forwarded > 0 {
		s.CPUMicrosPerPacket = cpu * 1e6 / float64(forwarded)
	}
	return s
}

// record appends step and moves the knee to it if it is the best good one.
func (m *measurement) record(step Step) {
	m.rate.Steps = append(m.rate.Steps, step)
	if step.Loss >= m.spec.MaxLoss {
		m.rate.Saturated = true
		return
	}
	if step.FlowsPerSec > m.rate.FlowsPerSec {
		m.rate.FlowsPerSec = step.FlowsPerSec
		m.rate.Offered = step.Offered
		m.rate.CPUMicrosPerPacket = step.CPUMicrosPerPacket
	}
}

// settleLimit bounds the wait for packets still queued after a blast.
const settleLimit = time.Second

// settle reads Forwarded until two readings 10 ms apart agree, so flows
// still in a backlog when the blast returns are counted.
func (m *measurement) settle() (uint64, error) {
	prev, err := m.spec.Forwarded()
	for deadline := time.Now().Add(settleLimit); err == nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		var cur uint64
		if cur, err = m.spec.Forwarded(); err == nil && cur == prev {
			return cur, nil
		}
		prev = cur
	}
	return prev, err
}
