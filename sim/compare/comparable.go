package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// ErrNotComparable says two runs measured different things or on different
// machines, so a regression gate between them means nothing.
var ErrNotComparable = errors.New("the runs are not comparable")

// Comparable returns nil when base and new ran the same scenario (name and
// hash of the scenario file, overrides included) on the same CPU model, as
// their meta records say; otherwise an error wrapping ErrNotComparable that
// names each difference. A run without a meta record (meta.json or the
// meta line of results.jsonl) cannot be checked, so it is not comparable
// either (svclab run always records one). The gate refuses incomparable
// runs unless told to allow the mismatch; compare only warns
// (environmentWarnings).
func Comparable(base, new *Run) error {
	var diffs []string
	switch {
	case base.Meta == nil || new.Meta == nil:
		for _, side := range []struct {
			name string
			run  *Run
		}{{"base", base}, {"new", new}} {
			if side.run.Meta == nil {
				diffs = append(diffs, fmt.Sprintf("the %s run has no meta record (meta.json or a meta line in %s), so its scenario and CPU cannot be checked", side.name, results.ResultsFile))
			}
		}
	default:
		b, n := base.Meta, new.Meta
		if b.Scenario != n.Scenario || b.ScenarioHash != n.ScenarioHash {
			diffs = append(diffs, fmt.Sprintf("scenario %s (hash %.12s) in base, %s (hash %.12s) in new", b.Scenario, b.ScenarioHash, n.Scenario, n.ScenarioHash))
		}
		if b.CPU != n.CPU {
			diffs = append(diffs, fmt.Sprintf("CPU %q in base, %q in new", b.CPU, n.CPU))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (record a baseline on this machine type with `make baseline`, or pass --allow-env-mismatch)",
		ErrNotComparable, strings.Join(diffs, "; "))
}
