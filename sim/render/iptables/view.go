package iptables

import (
	"net/netip"
	"reflect"
	"sort"

	"github.com/svclab/svclab/sim/model"
)

// kubeProxyView is what kube-proxy's change trackers hold of a service for
// the proxier of one family: the ServicePortMap its ServiceChangeTracker
// builds (nil when it skips the service) and the family's EndpointSlice
// (its ports and endpoints, as sim/kube writes it). A service changed for
// kube-proxy, and has its chains rewritten by a partial sync, exactly when
// either part changed (reflect.DeepEqual, as the trackers compare).
type kubeProxyView struct {
	service    *serviceView
	slicePorts []slicePort
	endpoints  []model.Endpoint
}

// serviceView holds a service's BaseServicePortInfo fields, common to its
// ports, and the ports sorted by name and protocol (a map in kube-proxy).
type serviceView struct {
	clusterIP           netip.Addr
	ports               []portView
	clientIP            bool
	timeout             int
	externalIPs, lbIPs  []netip.Addr
	sourceRanges        []netip.Prefix // nil: none; empty: one allows any
	externalPolicyLocal bool
	internalPolicyLocal bool
	healthCheckNodePort int
}

type portView struct {
	name     string
	protocol model.Protocol
	port     int
	nodePort int
}

type slicePort struct {
	name       string
	protocol   model.Protocol
	targetPort int
	unresolved bool
}

// sameForKubeProxy reports whether family f's proxier sees a and b alike.
func sameForKubeProxy(a, b *model.Service, f model.Family) bool {
	return reflect.DeepEqual(newKubeProxyView(a, f), newKubeProxyView(b, f))
}

func newKubeProxyView(s *model.Service, f model.Family) kubeProxyView {
	p := model.ProjectService(s, f)
	v := kubeProxyView{endpoints: p.Endpoints}
	for _, port := range s.Ports {
		v.slicePorts = append(v.slicePorts, slicePort{port.Name, port.Protocol, port.TargetPort, port.Unresolved})
	}
	if !p.Skipped() {
		v.service = newServiceView(s, &p)
	}
	return v
}

// newServiceView builds the view of s from its projection p.
func newServiceView(s, p *model.Service) *serviceView {
	clientIP, timeout := affinity(s)
	v := &serviceView{
		clusterIP: p.ClusterIP, clientIP: clientIP, timeout: timeout,
		externalIPs: nilIfEmpty(p.ExternalIPs), lbIPs: nilIfEmpty(p.LoadBalancerIPs),
		externalPolicyLocal: externalPolicyLocal(s),
		internalPolicyLocal: s.InternalPolicyLocal,
	}
	if len(p.LoadBalancerSourceRanges) > 0 {
		v.sourceRanges = sourceRanges(p.LoadBalancerSourceRanges)
		if v.sourceRanges == nil {
			v.sourceRanges = []netip.Prefix{}
		}
	}
	if s.Type == model.LoadBalancer && v.externalPolicyLocal {
		v.healthCheckNodePort = s.HealthCheckNodePort
	}
	for _, port := range s.Ports {
		pv := portView{name: port.Name, protocol: port.Protocol, port: port.Port}
		if s.Type == model.NodePort || s.Type == model.LoadBalancer {
			pv.nodePort = port.NodePort
		}
		v.ports = append(v.ports, pv)
	}
	sort.Slice(v.ports, func(i, j int) bool {
		a, b := v.ports[i], v.ports[j]
		return a.name < b.name || a.name == b.name && a.protocol < b.protocol
	})
	return v
}

func nilIfEmpty(a []netip.Addr) []netip.Addr {
	if len(a) == 0 {
		return nil
	}
	return a
}

// affinity is the session affinity kube-proxy gets for s: ClientIP when
// the model asks for it or gives a timeout, with Kubernetes' default
// timeout when it gives none (as sim/kube writes the Service).
func affinity(s *model.Service) (bool, int) {
	if !s.Affinity.ClientIP && s.Affinity.Timeout <= 0 {
		return false, 0
	}
	if s.Affinity.Timeout <= 0 {
		return true, model.DefaultAffinityTimeout
	}
	return true, s.Affinity.Timeout
}
