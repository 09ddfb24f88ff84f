package sweep

import (
	"errors"
	"fmt"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/topo"
)

// Options are what a sweep needs besides its scenario.
type Options struct {
	// Machine builds the points' labs and reads the machine's counters
	// (required).
	Machine machine.Machine
	// Prefix is the run prefix; point i's lab is PREFIX-i (i in hex).
	// Empty means a new random one.
	Prefix string
	// Settings is how each dataplane is programmed.
	Settings apply.Settings
	// PlantRules plants a slowdown in every point's node: that many
	// never-matching rules each forwarded packet passes (apply.Plant).
	// 0 plants nothing.
	PlantRules int
	// Deadline, when set, bounds the repetitions: once at least
	// MinRepetitions are done, no repetition starts that would end after
	// it (judged by the slowest repetition so far). The zero time runs
	// every repetition the scenario asks for.
	Deadline time.Time
	// MinRepetitions is the repetitions a Deadline never cuts (default
	// DefaultMinRepetitions).
	MinRepetitions int
	// Progress is told how many steps of the sweep are done (optional).
	Progress func(done, total int)
	// Log receives one line per notable event (optional).
	Log func(format string, args ...any)
}

// DefaultMinRepetitions is the repetitions a Deadline never cuts: two
// samples per point, so the calibration's lines see the noise.
const DefaultMinRepetitions = 2

// errNoMachine: Options.Machine is required.
var errNoMachine = errors.New("sweep: no machine to build the labs on")

func (o Options) withDefaults() Options {
	if o.MinRepetitions <= 0 {
		o.MinRepetitions = DefaultMinRepetitions
	}
	if o.Prefix == "" {
		o.Prefix = topo.NewPrefix()
	}
	return o
}

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
