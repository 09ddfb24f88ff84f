package cost

import (
	"fmt"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/dataplane"
)

// CalibrationSweep is the interleaved sweep `svclab plan calibrate` runs on
// the user's node: service counts that cross the CPU's L2 cache with
// kube-proxy's rules (a KUBE-SERVICES rule is about 0.5 KiB in the kernel,
// so 1,000 services are about 0.5 MiB and 5,000 about 2.5 MiB), the last
// and the uniform positions, and full and incremental syncs at every point.
type CalibrationSweep struct {
	Services    []int
	Dataplanes  []string
	Repetitions int
	Connections int
}

// Defaults of a calibration sweep.
const (
	DefaultCalibrationDuration = 3 * time.Minute
	// calibrationRepsPerMinute: one repetition of every point takes about
	// 20 s on a 2-CPU node once the rules are loaded; the loads take the
	// first minute.
	calibrationRepsPerMinute = 1.5
	minCalibrationReps       = 3
	maxCalibrationReps       = 60
)

// DefaultCalibrationServices are the calibration sweep's service counts.
var DefaultCalibrationServices = []int{1, 1000, 2500, 5000}

// DefaultCalibrationDataplanes are the host dataplanes calibrate measures
// (IPVS needs a user-mode-linux guest on many hosts: calibrate it with
// --dataplane).
var DefaultCalibrationDataplanes = []string{string(dataplane.IPTablesLegacy), string(dataplane.IPTablesNFT), string(dataplane.NFTables)}

// NewCalibrationSweep sizes a sweep for a duration: more repetitions for a
// longer one (reps > 0 overrides), at least 3.
func NewCalibrationSweep(duration time.Duration, reps int, dataplanes []string, services []int) (CalibrationSweep, error) {
	if duration <= 0 && reps <= 0 {
		return CalibrationSweep{}, fmt.Errorf("calibration duration %v: want > 0 (or give the repetitions)", duration)
	}
	if reps <= 0 {
		reps = int((duration.Minutes()-1)*calibrationRepsPerMinute + 0.5)
	}
	reps = min(max(reps, minCalibrationReps), maxCalibrationReps)
	if len(dataplanes) == 0 {
		dataplanes = DefaultCalibrationDataplanes
	}
	for _, d := range dataplanes {
		if _, err := LookupOf(d); err != nil {
			return CalibrationSweep{}, fmt.Errorf("calibration dataplane: %w", err)
		}
	}
	if len(services) == 0 {
		services = DefaultCalibrationServices
	}
	return CalibrationSweep{Services: services, Dataplanes: dataplanes, Repetitions: reps, Connections: 1000}, nil
}

// Scenario is the sweep as a scenario file (svclab run reads it; the
// calibration directory keeps it beside the results).
func (c CalibrationSweep) Scenario() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: plan-calibrate\n")
	fmt.Fprintf(&b, "description: |\n  svclab plan calibrate: an interleaved calibration sweep of this node\n")
	fmt.Fprintf(&b, "  (%d repetitions visit every point in a fresh random order).\n", c.Repetitions)
	fmt.Fprintf(&b, "sweep:\n  services: %s\n  dataplanes: [%s]\n", intList(c.Services), strings.Join(c.Dataplanes, ", "))
	fmt.Fprintf(&b, "  positions: [%s, %s]\n  endpointsPerService: 1\n", PositionLast, PositionUniform)
	fmt.Fprintf(&b, "  connections: %d\n  warmup: 100\n  repetitions: %d\n  throughputConnections: 1000\n  seed: 1\n",
		c.Connections, c.Repetitions)
	return []byte(b.String())
}

func intList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
