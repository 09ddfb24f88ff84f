package runner

import (
	"time"

	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/sim/results"
)

// outsideWatch adds up the CPU the machine spends outside the run's own
// processes (machine.Machine.OutsideCPU), polled with the other runs
// (besideWatch), whose lock guards it.
type outsideWatch struct {
	start, last     procstat.OutsideCPU
	startAt, lastAt time.Time
	load            results.OutsideLoad
	started, failed bool
	// logged is set once a poll's load has been logged.
	logged bool
}

// note takes one reading made at now, or the error reading it. It returns
// the error the first time one comes, to be logged; the watch then stops.
func (o *outsideWatch) note(c procstat.OutsideCPU, err error, now time.Time) error {
	if o.failed {
		return nil
	}
	if err != nil {
		o.failed = true
		return err
	}
	if !o.started {
		o.start, o.startAt, o.started = c, now, true
		o.last, o.lastAt = c, now
		return nil
	}
	if span := now.Sub(o.lastAt).Seconds(); span >= besidePoll.Seconds()/2 {
		if cpus := (c.Tasks - o.last.Tasks) / span; cpus > o.load.PeakCPUs {
			o.load.PeakCPUs, o.load.PeakAt = cpus, now.UTC().Format(time.RFC3339)
		}
	}
	o.last, o.lastAt = c, now
	return nil
}

// newlyBusy returns the most CPU used outside the run over one poll the
// first time it reaches results.OutsideWarnPeakCPUs, to be logged then and
// not again.
func (o *outsideWatch) newlyBusy() (float64, bool) {
	if o.logged || o.load.PeakCPUs < results.OutsideWarnPeakCPUs {
		return 0, false
	}
	o.logged = true
	return o.load.PeakCPUs, true
}

// result is the load over the whole watch; nil when nothing could be
// read or only once.
func (o *outsideWatch) result() *results.OutsideLoad {
	span := o.lastAt.Sub(o.startAt).Seconds()
	if o.failed || !o.started || span <= 0 {
		return nil
	}
	l := o.load
	l.Seconds = span
	l.CPUs = nonNegative((o.last.Tasks - o.start.Tasks) / span)
	l.StealCPUs = nonNegative((o.last.Steal - o.start.Steal) / span)
	return &l
}

// nonNegative is x, or 0 below it: a guard, since a sum of other
// programs' times falls only when one of them is reaped inside the run's
// tree or by a kernel thread and takes its times out of the sum.
func nonNegative(x float64) float64 { return max(x, 0) }
