package kube

import (
	"net/netip"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/svclab/svclab/sim/model"
)

// SliceSuffix names a service's IPv4 EndpointSlice: "<service>-svclab";
// its IPv6 slice is "<service>-svclab-v6".
const SliceSuffix = "-svclab"

// Service returns the v1 Service kube-proxy would receive for s, with the
// defaults the API server fills in (SessionAffinity None, Cluster traffic
// policies, ipFamilies and ipFamilyPolicy from the ClusterIPs).
func Service(s *model.Service) *v1.Service {
	svc := &v1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name},
		Spec: v1.ServiceSpec{
			Type:                     serviceType(s.Type),
			SessionAffinity:          v1.ServiceAffinityNone,
			InternalTrafficPolicy:    internalPolicy(s.InternalPolicyLocal),
			ExternalIPs:              addrStrings(s.ExternalIPs),
			LoadBalancerSourceRanges: prefixStrings(s.LoadBalancerSourceRanges),
			HealthCheckNodePort:      int32(s.HealthCheckNodePort),
		},
	}
	setClusterIPs(&svc.Spec, s)
	if s.TrafficDistribution != "" {
		td := s.TrafficDistribution
		svc.Spec.TrafficDistribution = &td
	}
	if externallyAccessible(s) {
		svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
		if s.ExternalPolicyLocal {
			svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
		}
	}
	for _, ip := range s.LoadBalancerIPs {
		svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, v1.LoadBalancerIngress{IP: ip.String()})
	}
	if s.Affinity.ClientIP || s.Affinity.Timeout > 0 {
		timeout := int32(s.Affinity.Timeout)
		if timeout <= 0 {
			timeout = model.DefaultAffinityTimeout
		}
		svc.Spec.SessionAffinity = v1.ServiceAffinityClientIP
		svc.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: &timeout}}
	}
	for _, p := range s.Ports {
		sp := v1.ServicePort{Name: p.Name, Protocol: v1.Protocol(p.Protocol), Port: int32(p.Port), TargetPort: intstr.FromInt32(int32(p.TargetPort))}
		if s.Type == model.NodePort || s.Type == model.LoadBalancer {
			sp.NodePort = int32(p.NodePort)
		}
		svc.Spec.Ports = append(svc.Spec.Ports, sp)
	}
	return svc
}

// externallyAccessible is the API server's test for a service that takes
// externalTrafficPolicy (it defaults it to Cluster): NodePort and
// LoadBalancer services, and ClusterIP services with external IPs.
func externallyAccessible(s *model.Service) bool {
	return s.Type == model.NodePort || s.Type == model.LoadBalancer ||
		(s.Type == model.ClusterIP || s.Type == "") && len(s.ExternalIPs) > 0
}

func serviceType(t model.ServiceType) v1.ServiceType {
	if t == "" {
		return v1.ServiceTypeClusterIP
	}
	return v1.ServiceType(t)
}

func internalPolicy(local bool) *v1.ServiceInternalTrafficPolicy {
	p := v1.ServiceInternalTrafficPolicyCluster
	if local {
		p = v1.ServiceInternalTrafficPolicyLocal
	}
	return &p
}

// setClusterIPs fills clusterIP(s), ipFamilies and ipFamilyPolicy as the
// API server does: a headless service is "None" (single stack, IPv4), a
// dual-stack one lists both addresses, primary first.
func setClusterIPs(spec *v1.ServiceSpec, s *model.Service) {
	single := v1.IPFamilyPolicySingleStack
	spec.IPFamilyPolicy = &single
	if s.Type == model.ExternalName {
		spec.ExternalName = s.Name + ".example.com"
		spec.IPFamilyPolicy = nil
		return
	}
	if !s.ClusterIP.IsValid() {
		spec.ClusterIP, spec.ClusterIPs = v1.ClusterIPNone, []string{v1.ClusterIPNone}
		spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
		return
	}
	spec.ClusterIP = s.ClusterIP.String()
	spec.ClusterIPs = []string{spec.ClusterIP}
	spec.IPFamilies = []v1.IPFamily{ipFamily(model.FamilyOf(s.ClusterIP))}
	if s.SecondaryClusterIP.IsValid() {
		dual := v1.IPFamilyPolicyRequireDualStack
		spec.IPFamilyPolicy = &dual
		spec.ClusterIPs = append(spec.ClusterIPs, s.SecondaryClusterIP.String())
		spec.IPFamilies = append(spec.IPFamilies, ipFamily(model.FamilyOf(s.SecondaryClusterIP)))
	}
}

func ipFamily(f model.Family) v1.IPFamily {
	if f == model.IPv6 {
		return v1.IPv6Protocol
	}
	return v1.IPv4Protocol
}

// EndpointSlice returns the IPv4 EndpointSlice of s (see EndpointSlices);
// it is empty when s has no IPv4 endpoint.
func EndpointSlice(s *model.Service) *discoveryv1.EndpointSlice {
	return endpointSlice(s, model.IPv4)
}

// EndpointSlices returns the slices that carry s's endpoints: the IPv4
// slice always (empty when there are no endpoints, as the EndpointSlice
// controller keeps one), and an IPv6 slice when s has an IPv6 ClusterIP or
// IPv6 endpoints. Each holds every endpoint of its family with its three
// conditions, node name, zone and hints, and one slice port per service
// port (its name and protocol, the target port as the port number) but
// an Unresolved one.
func EndpointSlices(s *model.Service) []*discoveryv1.EndpointSlice {
	out := []*discoveryv1.EndpointSlice{endpointSlice(s, model.IPv4)}
	if hasFamily(s, model.IPv6) {
		out = append(out, endpointSlice(s, model.IPv6))
	}
	return out
}

func hasFamily(s *model.Service, f model.Family) bool {
	if f.Has(s.ClusterIP) || f.Has(s.SecondaryClusterIP) {
		return true
	}
	for _, e := range s.Endpoints {
		if f.Has(e.IP) {
			return true
		}
	}
	return false
}

func endpointSlice(s *model.Service, f model.Family) *discoveryv1.EndpointSlice {
	name, addrType := s.Name+SliceSuffix, discoveryv1.AddressTypeIPv4
	if f == model.IPv6 {
		name, addrType = name+"-v6", discoveryv1.AddressTypeIPv6
	}
	es := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.Namespace,
			Name:      name,
			Labels:    map[string]string{discoveryv1.LabelServiceName: s.Name},
		},
		AddressType: addrType,
	}
	for _, p := range s.Ports {
		if p.Unresolved {
			continue // no slice port resolves it: kube-proxy has no endpoints for it
		}
		name, proto, port := p.Name, v1.Protocol(p.Protocol), int32(p.TargetPort)
		es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: &name, Protocol: &proto, Port: &port})
	}
	for _, e := range s.Endpoints {
		if f.Has(e.IP) {
			es.Endpoints = append(es.Endpoints, endpoint(e))
		}
	}
	return es
}

func endpoint(e model.Endpoint) discoveryv1.Endpoint {
	ready, serving, terminating := e.Ready, e.Serving, e.Terminating
	ep := discoveryv1.Endpoint{
		Addresses:  []string{e.IP.String()},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
	}
	if e.Node != "" {
		node := e.Node
		ep.NodeName = &node
	}
	if e.Zone != "" {
		zone := e.Zone
		ep.Zone = &zone
	}
	if e.ZoneHints != nil || e.NodeHints != nil {
		ep.Hints = &discoveryv1.EndpointHints{}
		for _, z := range e.ZoneHints {
			ep.Hints.ForZones = append(ep.Hints.ForZones, discoveryv1.ForZone{Name: z})
		}
		for _, n := range e.NodeHints {
			ep.Hints.ForNodes = append(ep.Hints.ForNodes, discoveryv1.ForNode{Name: n})
		}
	}
	return ep
}

// Objects returns every service of l and its EndpointSlices, in model
// order.
func Objects(l model.List) ([]v1.Service, []discoveryv1.EndpointSlice) {
	svcs := make([]v1.Service, 0, l.Len())
	slices := make([]discoveryv1.EndpointSlice, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		svcs = append(svcs, *Service(s))
		for _, es := range EndpointSlices(s) {
			slices = append(slices, *es)
		}
	}
	return svcs, slices
}

// Key names a service as kube-proxy's NamespacedName does: "ns/name".
func Key(s *model.Service) string { return s.Namespace + "/" + s.Name }

func addrStrings(in []netip.Addr) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, a := range in {
		out[i] = a.String()
	}
	return out
}

func prefixStrings(in []netip.Prefix) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, p := range in {
		out[i] = p.String()
	}
	return out
}

func metav1TypeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
