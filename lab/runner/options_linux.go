package runner

import (
	"fmt"

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
}

func (o Options) withDefaults() Options {
	if o.Machine == nil {
		o.Machine = Kernel{}
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
