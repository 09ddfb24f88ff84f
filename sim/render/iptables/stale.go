package iptables

import "github.com/svclab/svclab/sim/model"

// staleChains finds the chains of a partial sync's previous services that
// the current model no longer has: kube-proxy's existing chains (from
// iptables-save) minus activeNATChains, restricted to service chains.
type staleChains struct {
	r        *renderer
	previous []model.Service
	names    map[serviceName]bool // namespace/name of every previous service
	active   map[string]bool      // chains current services of those names still use
}

// serviceName identifies a service across syncs.
type serviceName struct{ namespace, name string }

func newStaleChains(r *renderer, previous []model.Service) *staleChains {
	st := &staleChains{r: r, previous: previous, names: map[serviceName]bool{}, active: map[string]bool{}}
	for i := range previous {
		st.names[serviceName{previous[i].Namespace, previous[i].Name}] = true
	}
	return st
}

// markActive records the chains of current service s, if a previous
// service has its name (chain names are hashes of the service port name,
// so no other service can share them).
func (st *staleChains) markActive(s *model.Service) {
	if len(st.names) == 0 || !st.names[serviceName{s.Namespace, s.Name}] {
		return
	}
	st.r.natChains(s, func(c string) { st.active[c] = true })
}

// list returns the stale chains, each once, in the order of the previous
// services and of their chains.
func (st *staleChains) list() []string {
	var out []string
	seen := map[string]bool{}
	for i := range st.previous {
		s := project(&st.previous[i], st.r.family)
		if s.Skipped() {
			continue
		}
		st.r.natChains(s, func(c string) {
			if !st.active[c] && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		})
	}
	return out
}
