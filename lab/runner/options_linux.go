package runner

import (
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/sweep"
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
	// MinRepetitions is the repetitions a Deadline never cuts (default
	// sweep.DefaultMinRepetitions).
	MinRepetitions int
}

func (o Options) withDefaults() Options {
	if o.Machine == nil {
		o.Machine = Kernel{}
	}
	if o.MinRepetitions <= 0 {
		o.MinRepetitions = sweep.DefaultMinRepetitions
	}
	if o.Prefix == "" {
		o.Prefix = topo.NewPrefix()
	}
	return o
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// settingsFor is what a dataplane of the scenario needs: its kube-proxy
// configuration with the section's IPVS scheduler, and the engine.
func settingsFor(sc *scenario.Scenario, scheduler string) apply.Settings {
	return apply.Settings{Config: sc.KubeProxy.Config(scheduler), Engine: sc.KubeProxy.Engine}
}
