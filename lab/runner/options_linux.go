package runner

import (
	"fmt"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/scenario"
)

// Options are a run's settings that do not come from the scenario.
type Options struct {
	// OutDir is the run directory; empty means results/runs/NAME-TIMESTAMP.
	OutDir string
	// Prefix is the run prefix every lab object's name starts with; empty
	// means a new random one.
	Prefix string
	// Progress is told how many steps of the run are done (optional).
	Progress func(done, total int)
	// Log receives one line per notable event (optional).
	Log func(format string, args ...any)
	// Machine builds labs and reads the machine's counters; nil is the real
	// kernel (Kernel).
	Machine machine.Machine
	// PlantRules plants a slowdown in every sweep node: that many
	// never-matching rules each forwarded packet passes (apply.Plant), to
	// measure a gate's power with a known change. 0 plants nothing.
	PlantRules int
	// Deadline, when set, bounds a sweep's repetitions: once at least
	// MinRepetitions are done, no repetition starts that would end after
	// it (judged by the slowest repetition so far). The zero time runs
	// every repetition the scenario asks for. svclab plan calibrate sets
	// it so its measuring fits its --duration on a busy machine too.
	Deadline time.Time
	// MinRepetitions is the repetitions a Deadline never cuts (default 2).
	MinRepetitions int
}

func (o Options) withDefaults() Options {
	if o.Machine == nil {
		o.Machine = Kernel{}
	}
	if o.MinRepetitions <= 0 {
		o.MinRepetitions = defaultMinRepetitions
	}
	if o.Prefix == "" {
		o.Prefix = topo.NewPrefix()
	}
	return o
}

// defaultMinRepetitions is the repetitions a Deadline never cuts: two
// samples per point, so the calibration's lines see the noise.
const defaultMinRepetitions = 2

// repetitionFits says whether repetition rep (1-based) may start at now:
// always up to MinRepetitions, then only when the slowest repetition so far
// would still end by the Deadline.
func (o Options) repetitionFits(rep int, now time.Time, slowest time.Duration) bool {
	if o.Deadline.IsZero() || rep <= o.MinRepetitions {
		return true
	}
	return !now.Add(slowest).After(o.Deadline)
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// closeLab closes l and joins its error to err.
func closeLab(l machine.Lab, err error) error {
	if cerr := l.Close(); cerr != nil {
		return fmt.Errorf("%w (and teardown: %v)", err, cerr)
	}
	return err
}

// settingsFor is what a dataplane of the scenario needs: its kube-proxy
// configuration with the section's IPVS scheduler, and the engine.
func settingsFor(sc *scenario.Scenario, scheduler string) apply.Settings {
	return apply.Settings{Config: sc.KubeProxy.Config(scheduler), Engine: sc.KubeProxy.Engine}
}
