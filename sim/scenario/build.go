package scenario

import (
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// Cluster returns the scenario's cluster settings (defaults filled).
func (s *Scenario) Cluster() model.Cluster { return s.cluster }

// PodCIDR is where the lab's real pods live.
func (s *Scenario) PodCIDR() netip.Prefix { return s.podCIDR }

// FillerCIDR is where synthetic endpoints live (owned by the lab's sink pod).
func (s *Scenario) FillerCIDR() netip.Prefix { return s.fillerCIDR }

// Explicit returns the scenario's explicit services as model services.
func (s *Scenario) Explicit() model.Slice {
	out := make(model.Slice, 0, len(s.explicit))
	for _, svc := range s.explicit {
		svc.Ports = slices.Clone(svc.Ports)
		svc.Endpoints = slices.Clone(svc.Endpoints)
		out = append(out, svc)
	}
	return out
}

func toModelService(fs service) model.Service {
	svc := model.Service{
		Namespace: fs.Namespace, Name: fs.Name, Type: model.ServiceType(fs.Type),
		ClusterIP: netip.MustParseAddr(fs.ClusterIP),
	}
	if fs.SessionAffinity == "ClientIP" {
		svc.Affinity = model.Affinity{ClientIP: true, Timeout: *fs.SessionAffinityTimeout}
	}
	for _, p := range fs.Ports {
		svc.Ports = append(svc.Ports, model.Port{Name: p.Name, Protocol: model.Protocol(p.Protocol), Port: p.Port, TargetPort: *p.TargetPort, NodePort: p.NodePort})
	}
	for _, e := range fs.Endpoints {
		ready := e.Ready == nil || *e.Ready
		node := e.Node
		if node == "" {
			node = "node-1"
		}
		svc.Endpoints = append(svc.Endpoints, model.Endpoint{IP: netip.MustParseAddr(e.IP), Ready: ready, Node: node})
	}
	return svc
}

// ModelWith builds a model with the explicit services placed at placement
// among services synthetic ones of endpoints endpoints each.
func (s *Scenario) ModelWith(services, endpoints int, seed uint64, placement string) (*model.Model, error) {
	gen, err := newGeneratorFor(&s.f, services, endpoints, seed)
	if err != nil {
		return nil, err
	}
	pos, err := model.ParsePosition(placement)
	if err != nil {
		return nil, err
	}
	return &model.Model{Cluster: s.Cluster(), Services: model.Place(s.Explicit(), gen, pos)}, nil
}

// Model builds the model of the scenario's explicit and synthetic services,
// with the explicit ones placed as the scenario says.
func (s *Scenario) Model() (*model.Model, error) {
	n, eps, seed := 0, 0, uint64(0)
	if syn := s.Synthetic; syn != nil {
		n, eps, seed = syn.Services, syn.EndpointsPerService, syn.Seed
	}
	return s.ModelWith(n, eps, seed, s.Placement)
}
