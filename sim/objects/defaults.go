package objects

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// defaultService applies what the API server fills in on create
// (SetDefaults_Service and the service registry's IP family defaulting), so
// a hand-written object reads as the stored one.
func defaultService(s *corev1.Service) {
	sp := &s.Spec
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	if sp.SessionAffinity == corev1.ServiceAffinityNone {
		sp.SessionAffinityConfig = nil
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		c := sp.SessionAffinityConfig
		if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			t := corev1.DefaultClientIPServiceAffinitySeconds
			sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &t}}
		}
	}
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if externallyAccessible(s) && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.InternalTrafficPolicy == nil && sp.Type != corev1.ServiceTypeExternalName {
		c := corev1.ServiceInternalTrafficPolicyCluster
		sp.InternalTrafficPolicy = &c
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		t := true
		sp.AllocateLoadBalancerNodePorts = &t
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer {
		vip := corev1.LoadBalancerIPModeVIP
		for i, ing := range s.Status.LoadBalancer.Ingress {
			if ing.IP != "" && ing.IPMode == nil {
				s.Status.LoadBalancer.Ingress[i].IPMode = &vip
			}
		}
	}
	defaultFamilies(s)
}

// defaultFamilies fills clusterIP/clusterIPs from each other, ipFamilies
// from clusterIPs and ipFamilyPolicy from their number, as the registry
// does for a service created without them. Addresses that do not parse are
// left for validation.
func defaultFamilies(s *corev1.Service) {
	sp := &s.Spec
	if sp.Type == corev1.ServiceTypeExternalName {
		return
	}
	if len(sp.ClusterIPs) == 0 && sp.ClusterIP != "" {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if sp.ClusterIP == "" && len(sp.ClusterIPs) > 0 {
		sp.ClusterIP = sp.ClusterIPs[0]
	}
	if len(sp.IPFamilies) == 0 && sp.ClusterIP != corev1.ClusterIPNone {
		for _, ip := range sp.ClusterIPs {
			a, ok := parseIP(ip)
			if !ok {
				return
			}
			fam := corev1.IPv4Protocol
			if a.Is6() {
				fam = corev1.IPv6Protocol
			}
			sp.IPFamilies = append(sp.IPFamilies, fam)
		}
	}
	if sp.IPFamilyPolicy == nil && len(sp.IPFamilies) > 0 {
		p := corev1.IPFamilyPolicySingleStack
		if len(sp.IPFamilies) > 1 {
			p = corev1.IPFamilyPolicyRequireDualStack
		}
		sp.IPFamilyPolicy = &p
	}
}

// externallyAccessible is k8s.io/kubernetes' apiservice.ExternallyAccessible.
func externallyAccessible(s *corev1.Service) bool {
	t := s.Spec.Type
	return t == corev1.ServiceTypeLoadBalancer || t == corev1.ServiceTypeNodePort ||
		(t == corev1.ServiceTypeClusterIP && len(s.Spec.ExternalIPs) > 0)
}

var defaultPortName = ""

// defaultSlice applies SetDefaults_EndpointPort (name "", protocol TCP).
func defaultSlice(es *discoveryv1.EndpointSlice) {
	if es.Namespace == "" {
		es.Namespace = "default"
	}
	for i := range es.Ports {
		p := &es.Ports[i]
		if p.Name == nil {
			n := defaultPortName
			p.Name = &n
		}
		if p.Protocol == nil {
			tcp := corev1.ProtocolTCP
			p.Protocol = &tcp
		}
	}
}
