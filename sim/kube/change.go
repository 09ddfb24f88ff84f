package kube

import (
	"fmt"
	"net/netip"
	"reflect"

	v1 "k8s.io/api/core/v1"

	"github.com/svclab/svclab/sim/model"
)

// NewRequest builds the driver's input for mode: the objects of m, and one
// Step per later model in next, each the events that turn the model before
// it into it (see Diff). The node and cluster settings come from m.
func NewRequest(mode string, m *model.Model, next ...*model.Model) (*Request, error) {
	if m == nil || m.Services == nil {
		return nil, fmt.Errorf("kube request: no model")
	}
	if !m.Cluster.ClusterCIDR.IsValid() {
		return nil, fmt.Errorf("kube request: cluster CIDR (kube-proxy's local detector) is not set")
	}
	req := &Request{
		Mode:          mode,
		NodeName:      m.Cluster.NodeName,
		ClusterCIDR:   m.Cluster.ClusterCIDR.String(),
		MasqueradeBit: m.Cluster.MasqueradeBit,
		Objects:       v1.List{TypeMeta: listMeta},
	}
	if m.Cluster.ServiceCIDR.IsValid() {
		req.ServiceCIDRs = []string{m.Cluster.ServiceCIDR.String()}
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		req.Objects.Items = append(req.Objects.Items, Raw(Service(s)), Raw(EndpointSlice(s)))
	}
	prev := m.Services
	for _, n := range next {
		req.Steps = append(req.Steps, Diff(prev, n.Services))
		prev = n.Services
	}
	return req, nil
}

// Diff returns the object events that turn the services of old into those
// of new, services matched by namespace and name: a service only in new is
// added with its EndpointSlice, one only in old is deleted with its slice,
// and a service in both gets an update of whichever of the two objects
// changed. Events come in new's order, then deletions in old's order.
func Diff(old, new model.List) Step {
	before := make(map[string]*model.Service, old.Len())
	for i := 0; i < old.Len(); i++ {
		s := *old.At(i)
		before[Key(&s)] = &s
	}
	var st Step
	seen := make(map[string]bool, new.Len())
	for i := 0; i < new.Len(); i++ {
		s := new.At(i)
		seen[Key(s)] = true
		prev, ok := before[Key(s)]
		if !ok {
			st.Ops = append(st.Ops, Op{Add, Raw(Service(s))}, Op{Add, Raw(EndpointSlice(s))})
			continue
		}
		if svc := Service(s); !reflect.DeepEqual(svc, Service(prev)) {
			st.Ops = append(st.Ops, Op{Update, Raw(svc)})
		}
		if es := EndpointSlice(s); !reflect.DeepEqual(es, EndpointSlice(prev)) {
			st.Ops = append(st.Ops, Op{Update, Raw(es)})
		}
	}
	for i := 0; i < old.Len(); i++ {
		s := old.At(i)
		if !seen[Key(s)] {
			st.Ops = append(st.Ops, Op{Delete, Raw(EndpointSlice(s))}, Op{Delete, Raw(Service(s))})
		}
	}
	return st
}

// AddEndpoint returns l with endpoint e appended to service i: the change
// a partial sync measures.
func AddEndpoint(l model.List, i int, e model.Endpoint) model.List {
	s := *l.At(i)
	s.Endpoints = append(append([]model.Endpoint(nil), s.Endpoints...), e)
	return model.Replace(l, i, s)
}

// RemoveEndpoint returns l without the endpoint with address ip in service i.
func RemoveEndpoint(l model.List, i int, ip netip.Addr) model.List {
	s := *l.At(i)
	var eps []model.Endpoint
	for _, e := range s.Endpoints {
		if e.IP != ip {
			eps = append(eps, e)
		}
	}
	s.Endpoints = eps
	return model.Replace(l, i, s)
}

// listMeta is a v1 List's type.
var listMeta = metav1TypeMeta("v1", "List")
