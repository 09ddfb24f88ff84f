package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// Cluster returns the scenario's cluster settings (defaults filled).
func (s *Scenario) Cluster() model.Cluster {
	c := model.DefaultCluster()
	c.ClusterCIDR = netip.MustParsePrefix(s.File.Cluster.ClusterCIDR)
	c.ServiceCIDR = netip.MustParsePrefix(s.File.Cluster.ServiceCIDR)
	c.MasqueradeBit = *s.File.Cluster.MasqueradeBit
	return c
}

// PodCIDR is where the lab's real pods live.
func (s *Scenario) PodCIDR() netip.Prefix { return netip.MustParsePrefix(s.File.Cluster.PodCIDR) }

// FillerCIDR is where synthetic endpoints live (owned by the lab's sink pod).
func (s *Scenario) FillerCIDR() netip.Prefix {
	return netip.MustParsePrefix(s.File.Cluster.FillerCIDR)
}

// Explicit returns the scenario's explicit services as model services.
func (s *Scenario) Explicit() model.Slice {
	out := make(model.Slice, 0, len(s.File.Services))
	for _, fs := range s.File.Services {
		out = append(out, toModelService(fs))
	}
	return out
}

func toModelService(fs Service) model.Service {
	svc := model.Service{
		Namespace: fs.Namespace, Name: fs.Name, Type: model.ServiceType(fs.Type),
		ClusterIP: netip.MustParseAddr(fs.ClusterIP),
	}
	if fs.SessionAffinity == "ClientIP" {
		svc.Affinity = model.Affinity{ClientIP: true, Timeout: fs.SessionAffinityTimeout}
	}
	for _, p := range fs.Ports {
		svc.Ports = append(svc.Ports, model.Port{Name: p.Name, Protocol: model.Protocol(p.Protocol), Port: p.Port, TargetPort: p.TargetPort, NodePort: p.NodePort})
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
	gen, err := NewGeneratorFor(&s.File, services, endpoints, seed)
	if err != nil {
		return nil, err
	}
	pos, err := model.ParsePosition(placement)
	if err != nil {
		return nil, err
	}
	return &model.Model{Cluster: s.Cluster(), Services: model.Place(s.Explicit(), gen, pos)}, nil
}

// Hash is the SHA-256 of the scenario file's bytes, recorded with results.
func (s *Scenario) Hash() string {
	sum := sha256.Sum256(s.Raw)
	return hex.EncodeToString(sum[:])
}
