package conformance

import "github.com/svclab/svclab/sim/model"

// shrink reduces tc greedily (fewer changes, services, endpoints, ports)
// while the engines still differ in the same way (same first line of the
// difference), and returns the smallest case found and its difference.
func shrink(mode string, cmp comparer, tc *Case, diff string) (*Case, string) {
	kind := diffKind(diff)
	still := func(c *Case) (string, bool) {
		d, _, err := check(mode, cmp, c)
		return d, err == nil && d != "" && diffKind(d) == kind
	}
	for improved := true; improved; {
		improved = false
		for _, cand := range candidates(tc) {
			if d, ok := still(cand); ok {
				tc, diff, improved = cand, d, true
				break
			}
		}
	}
	return tc, diff
}

// candidates lists the one-step reductions of tc, largest first.
func candidates(tc *Case) []*Case {
	var out []*Case
	with := func(svcs model.Slice, changes []Change) *Case {
		c := *tc
		c.Services, c.Changes = svcs, changes
		return &c
	}
	if n := len(tc.Services); n > 1 {
		out = append(out, with(clone(tc.Services[:n/2]), tc.Changes), with(clone(tc.Services[n/2:]), tc.Changes))
	}
	for i := range tc.Changes {
		out = append(out, with(tc.Services, append(append([]Change(nil), tc.Changes[:i]...), tc.Changes[i+1:]...)))
	}
	for i := range tc.Services {
		out = append(out, with(append(clone(tc.Services[:i]), tc.Services[i+1:]...), tc.Changes))
	}
	for i, s := range tc.Services {
		if n := len(s.Endpoints); n > 1 {
			for _, eps := range [][]model.Endpoint{s.Endpoints[:n/2], s.Endpoints[n/2:]} {
				svcs := clone(tc.Services)
				svcs[i].Endpoints = append([]model.Endpoint(nil), eps...)
				out = append(out, with(svcs, tc.Changes))
			}
		}
		for j := range s.Endpoints {
			svcs := clone(tc.Services)
			svcs[i].Endpoints = append(append([]model.Endpoint(nil), s.Endpoints[:j]...), s.Endpoints[j+1:]...)
			out = append(out, with(svcs, tc.Changes))
		}
		for j := range s.Ports {
			if len(s.Ports) > 1 {
				svcs := clone(tc.Services)
				svcs[i].Ports = append(append([]model.Port(nil), s.Ports[:j]...), s.Ports[j+1:]...)
				out = append(out, with(svcs, tc.Changes))
			}
		}
	}
	for i, c := range tc.Changes {
		if c.Kind == AddService && len(c.Service.Endpoints) > 0 {
			changes := append([]Change(nil), tc.Changes...)
			changes[i].Service.Endpoints = c.Service.Endpoints[1:]
			out = append(out, with(tc.Services, changes))
		}
	}
	return out
}

// clone copies the slice of services (their ports and endpoints are
// replaced, never modified in place, by candidates).
func clone(s model.Slice) model.Slice { return append(model.Slice(nil), s...) }
