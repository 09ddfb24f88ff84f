package kube

import (
	"fmt"
	"net/netip"
	"reflect"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// NewRequest builds the driver's input for mode: the objects of m, and one
// Step per later model in next, each the events that turn the model before
// it into it (see Diff). The node and cluster settings come from m, for the
// proxier of m.Family: m is the whole (not projected) model, since
// kube-proxy's per-family proxier filters the objects itself. kube-proxy's
// flags are cfg's, and of its host facts whether iptables has
// --random-fully (render mode); its release is the driver binary's, and the
// driver takes no feature gates.
func NewRequest(mode string, cfg render.Config, m *model.Model, next ...*model.Model) (*Request, error) {
	if m == nil || m.Services == nil {
		return nil, fmt.Errorf("kube request: no model")
	}
	c := m.Cluster.ForFamily(m.Family)
	if !c.ClusterCIDR.IsValid() {
		return nil, fmt.Errorf("kube request: %s cluster CIDR (kube-proxy's local detector) is not set", m.Family)
	}
	req := &Request{
		Mode:          mode,
		Family:        m.Family.String(),
		NodeName:      c.NodeName,
		ClusterCIDR:   c.ClusterCIDR.String(),
		MasqueradeBit: c.MasqueradeBit,
		NoRandomFully: cfg.Host.NoRandomFully,
		Objects:       v1.List{TypeMeta: listMeta},
	}
	setProxyConfig(req, c, cfg.Flags)
	if c.ServiceCIDR.IsValid() {
		req.ServiceCIDRs = []string{c.ServiceCIDR.String()}
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		req.Objects.Items = append(req.Objects.Items, Raw(Service(s)))
		for _, es := range EndpointSlices(s) {
			req.Objects.Items = append(req.Objects.Items, Raw(es))
		}
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
// Services equal in both are skipped before any object is built, and a
// leading run of the very same services (lists that share them, as a
// timeline's states do) before any is even compared.
func Diff(old, new model.List) Step {
	shared := 0
	for shared < min(old.Len(), new.Len()) && old.At(shared) == new.At(shared) {
		shared++
	}
	old, new = suffix{old, shared}, suffix{new, shared}
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
		if ok && reflect.DeepEqual(s, prev) {
			// Its objects are functions of the service: unchanged. This
			// check keeps a timeline's step cheap (converting 10,000
			// services to objects took 73 ms a step, more than a storm's
			// 10 ms between changes).
			continue
		}
		if !ok {
			st.Ops = append(st.Ops, Op{Add, Raw(Service(s))})
			for _, es := range EndpointSlices(s) {
				st.Ops = append(st.Ops, Op{Add, Raw(es)})
			}
			continue
		}
		if svc := Service(s); !reflect.DeepEqual(svc, Service(prev)) {
			st.Ops = append(st.Ops, Op{Update, Raw(svc)})
		}
		st.Ops = append(st.Ops, sliceOps(EndpointSlices(prev), EndpointSlices(s))...)
	}
	for i := 0; i < old.Len(); i++ {
		s := old.At(i)
		if !seen[Key(s)] {
			for _, es := range EndpointSlices(s) {
				st.Ops = append(st.Ops, Op{Delete, Raw(es)})
			}
			st.Ops = append(st.Ops, Op{Delete, Raw(Service(s))})
		}
	}
	return st
}

// suffix is a list's services from index from on.
type suffix struct {
	model.List
	from int
}

func (s suffix) Len() int                { return s.List.Len() - s.from }
func (s suffix) At(i int) *model.Service { return s.List.At(s.from + i) }

// sliceOps returns the events that turn one service's slices old into new,
// matched by name.
func sliceOps(old, new []*discoveryv1.EndpointSlice) []Op {
	var ops []Op
	for _, es := range new {
		prev := findSlice(old, es.Name)
		switch {
		case prev == nil:
			ops = append(ops, Op{Add, Raw(es)})
		case !reflect.DeepEqual(es, prev):
			ops = append(ops, Op{Update, Raw(es)})
		}
	}
	for _, es := range old {
		if findSlice(new, es.Name) == nil {
			ops = append(ops, Op{Delete, Raw(es)})
		}
	}
	return ops
}

func findSlice(in []*discoveryv1.EndpointSlice, name string) *discoveryv1.EndpointSlice {
	for _, es := range in {
		if es.Name == name {
			return es
		}
	}
	return nil
}

// setProxyConfig copies the node addresses and topology labels of c (one
// family's cluster settings) and kube-proxy's flags into req.
func setProxyConfig(req *Request, c model.Cluster, flags render.Flags) {
	if c.NodeIP.IsValid() {
		req.NodeIP = c.NodeIP.String()
	}
	if c.NodeZone != "" {
		req.TopologyLabels = map[string]string{v1.LabelTopologyZone: c.NodeZone}
	}
	req.MasqueradeAll = flags.MasqueradeAll
	req.LocalhostNodePorts = !flags.NoLocalhostNodePorts
	req.NodePortAddresses = nodePortAddresses(c, flags)
}

// nodePortAddresses returns kube-proxy's --nodeport-addresses for c (one
// family's settings) as CIDR strings: the configured CIDRs, "primary"
// resolved to the node IP as kube-proxy's server does, nil for every
// address.
func nodePortAddresses(c model.Cluster, flags render.Flags) []string {
	var out []string
	for _, p := range flags.NodePortAddresses {
		out = append(out, p.String())
	}
	if flags.NodePortPrimary && c.NodeIP.IsValid() {
		out = append(out, netip.PrefixFrom(c.NodeIP, c.NodeIP.BitLen()).String())
	}
	return out
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
