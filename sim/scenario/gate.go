package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/metric"
)

// GateRule is one primary comparison of an A/B run: Metric at Services
// (0: the sweep's largest count), gated at Threshold percent.
type GateRule struct {
	Metric    string
	Threshold float64
	Services  int
}

// DefaultGateThreshold is a gate rule's threshold when it sets none.
const DefaultGateThreshold = 10.0

// MaxGateRules bounds the gate: list; a long list would spend the
// multiple-comparison correction's power.
const MaxGateRules = 8

// gateMetricNames are the metrics a gate rule may name: the sweep's.
func gateMetricNames() []string {
	var out []string
	for _, m := range metric.Sweep() {
		out = append(out, m.Name)
	}
	return out
}

// validateGate checks the gate: rules against the sweep.
func validateGate(f *file) []pathError {
	if len(f.Gate) == 0 {
		return nil
	}
	if f.Sweep == nil {
		return []pathError{fieldAt("gate")("gate: needs a sweep: section (svclab ab compares sweep points)", "add a sweep, or remove gate:")}
	}
	var errs []pathError
	if len(f.Gate) > MaxGateRules {
		errs = append(errs, fieldAt("gate")(fmt.Sprintf("%d rules, more than %d", len(f.Gate), MaxGateRules), "gate on the few metrics a change moves; the rest is reported anyway"))
	}
	seen := map[string]bool{}
	for i, g := range f.Gate {
		at := func(key string) func(msg, hint string) pathError { return fieldAt("gate", i, key) }
		if !slices.Contains(gateMetricNames(), g.Metric) {
			errs = append(errs, at("metric")(fmt.Sprintf("%q is not a sweep metric", g.Metric), "use one of "+strings.Join(gateMetricNames(), ", ")))
		}
		if t := g.Threshold; t != nil && !(*t > 0 && *t <= 1000) {
			errs = append(errs, at("threshold")(fmt.Sprintf("%g is out of range", *t), "a percentage above 0 and at most 1000, e.g. 5"))
		}
		if g.Services != 0 && !slices.Contains(f.Sweep.Services, g.Services) {
			errs = append(errs, at("services")(fmt.Sprintf("%d is not one of sweep.services", g.Services), "use one of the sweep's service counts, or leave it out for the largest"))
		}
		key := fmt.Sprintf("%s@%d", g.Metric, g.Services)
		if seen[key] {
			errs = append(errs, at("metric")(fmt.Sprintf("%s at %s is gated twice", g.Metric, servicesName(g.Services)), "remove one"))
		}
		seen[key] = true
	}
	return errs
}

func servicesName(n int) string {
	if n == 0 {
		return "the largest service count"
	}
	return fmt.Sprintf("%d services", n)
}

// gateRules is the typed gate: list.
func gateRules(f file) []GateRule {
	var out []GateRule
	for _, g := range f.Gate {
		r := GateRule{Metric: g.Metric, Threshold: DefaultGateThreshold, Services: g.Services}
		if g.Threshold != nil {
			r.Threshold = *g.Threshold
		}
		out = append(out, r)
	}
	return out
}
