package sweep

import (
	"fmt"
	"slices"

	"github.com/svclab/svclab/lab/traffic"
)

// CheckProbeCPU refuses a sweep.probeCPU the run's process may not use
// (nil: the probes are not pinned). svclab run checks it before the run
// starts; Run again before any point is set up (a run in the guest, whose
// CPUs are its own).
func CheckProbeCPU(cpu *int) error {
	if cpu == nil {
		return nil
	}
	allowed, err := traffic.AllowedCPUs()
	if err != nil {
		return fmt.Errorf("sweep.probeCPU: %w", err)
	}
	if !slices.Contains(allowed, *cpu) {
		return fmt.Errorf("sweep.probeCPU: CPU %d is not one this run may use (it may use %v): name one of those, or remove sweep.probeCPU to leave the probes to the scheduler", *cpu, allowed)
	}
	return nil
}
