package compare

import (
	"fmt"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// environmentWarnings lists what differs between the two environments:
// kernel, guest kernel, CPU model and count, svclab version, each tool's
// version line (iptables backends included: "iptables v1.8.9
// (nf_tables)"), and the scenario.
func environmentWarnings(base, new *results.Meta) []string {
	switch {
	case base == nil && new == nil:
		return []string{"neither run records its environment (no meta): differences cannot be checked"}
	case base == nil:
		return []string{"the base run does not record its environment (no meta): differences cannot be checked"}
	case new == nil:
		return []string{"the new run does not record its environment (no meta): differences cannot be checked"}
	}
	var out []string
	differ := func(what, b, n string) {
		if b != n {
			out = append(out, fmt.Sprintf("environments differ: %s %q in base, %q in new", what, b, n))
		}
	}
	differ("kernel", base.Kernel, new.Kernel)
	differ("guest kernel", base.GuestKernel, new.GuestKernel)
	differ("CPU", base.CPU, new.CPU)
	differ("CPU count", fmt.Sprint(base.CPUs), fmt.Sprint(new.CPUs))
	differ("svclab version", base.SvclabVersion, new.SvclabVersion)
	for _, tool := range toolNames(base, new) {
		differ(tool, toolVersion(base, tool), toolVersion(new, tool))
	}
	if base.Scenario != new.Scenario || base.ScenarioHash != new.ScenarioHash {
		out = append(out, fmt.Sprintf("the scenarios differ: %s (hash %.12s) in base, %s (hash %.12s) in new",
			base.Scenario, base.ScenarioHash, new.Scenario, new.ScenarioHash))
	}
	return out
}

// toolNames is the sorted union of both runs' tools.
func toolNames(base, new *results.Meta) []string {
	var names []string
	for _, m := range []*results.Meta{base, new} {
		for name := range m.Tools {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

func toolVersion(m *results.Meta, tool string) string {
	if v, ok := m.Tools[tool]; ok {
		return v
	}
	return "(not recorded)"
}
