package apply

import "github.com/svclab/svclab/sim/model"

// Program is FullSync: IPVS mode has one way to load its state.
func (d *IPVS) Program(m *model.Model) (Sync, error) { return d.FullSync(m) }

// IncrementalSync re-syncs the model with ep added to service i. kube-proxy's
// IPVS proxier has no partial sync: every sync recomputes the whole state
// (ipsets, rules) and makes netlink calls only for what changed, which is
// what FullSync does against an already programmed kernel.
func (d *IPVS) IncrementalSync(m *model.Model, i int, ep model.Endpoint) (Sync, error) {
	svc := *m.Services.At(i)
	svc.Endpoints = append(append([]model.Endpoint(nil), svc.Endpoints...), ep)
	return d.FullSync(&model.Model{Cluster: m.Cluster, Services: model.Replace(m.Services, i, svc)})
}
