package objects

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

// serviceFields is what validation parses out of a Service for the model.
type serviceFields struct {
	clusterIPs   []netip.Addr
	externalIPs  []netip.Addr
	lbIPs        []netip.Addr
	sourceRanges []netip.Prefix
}

// validateService checks what kube-proxy reads of a defaulted Service and
// parses its addresses.
func validateService(ref objectRef, s *corev1.Service) (serviceFields, error) {
	var out serviceFields
	sp := &s.Spec
	if s.Name == "" {
		return out, ref.errorf("metadata.name", "a Service needs a name", "")
	}
	if err := validateEnums(ref, s); err != nil {
		return out, err
	}
	switch sp.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
	case corev1.ServiceTypeExternalName:
		return out, nil // kube-proxy skips it, whatever else it says
	default:
		return out, ref.errorf("spec.type", fmt.Sprintf("unknown type %s", apicheck.Excerpt(string(sp.Type))), "use ClusterIP, NodePort, LoadBalancer or ExternalName")
	}
	if err := validateClusterIPs(ref, s, &out); err != nil {
		return out, err
	}
	if err := validatePorts(ref, s); err != nil {
		return out, err
	}
	if err := validatePolicies(ref, s); err != nil {
		return out, err
	}
	for i, ip := range sp.ExternalIPs {
		a, ok := parseIP(ip)
		if !ok {
			return out, ref.errorf(fmt.Sprintf("spec.externalIPs[%d]", i), fmt.Sprintf("%s is not an IP address", apicheck.Excerpt(ip)), "")
		}
		out.externalIPs = append(out.externalIPs, a)
	}
	for i, r := range sp.LoadBalancerSourceRanges {
		p, ok := parseCIDR(r)
		if !ok {
			return out, ref.errorf(fmt.Sprintf("spec.loadBalancerSourceRanges[%d]", i), fmt.Sprintf("%s is not a CIDR", apicheck.Excerpt(r)), "e.g. 203.0.113.0/24")
		}
		out.sourceRanges = append(out.sourceRanges, p)
	}
	for i, ing := range s.Status.LoadBalancer.Ingress {
		if ing.IP == "" {
			continue
		}
		a, ok := parseIP(ing.IP)
		if !ok {
			return out, ref.errorf(fmt.Sprintf("status.loadBalancer.ingress[%d].ip", i), fmt.Sprintf("%s is not an IP address", apicheck.Excerpt(ing.IP)), "")
		}
		if ing.IPMode != nil && *ing.IPMode != corev1.LoadBalancerIPModeVIP && *ing.IPMode != corev1.LoadBalancerIPModeProxy {
			return out, ref.errorf(fmt.Sprintf("status.loadBalancer.ingress[%d].ipMode", i), fmt.Sprintf("unknown ipMode %s", apicheck.Excerpt(string(*ing.IPMode))), "use VIP or Proxy")
		}
		if ing.IPMode == nil || *ing.IPMode == corev1.LoadBalancerIPModeVIP { // proxyutil.IsVIPMode
			out.lbIPs = append(out.lbIPs, a)
		}
	}
	return out, nil
}

func validateClusterIPs(ref objectRef, s *corev1.Service, out *serviceFields) error {
	sp := &s.Spec
	if sp.ClusterIP == corev1.ClusterIPNone || sp.ClusterIP == "" {
		return nil // headless: kube-proxy skips it
	}
	if _, ok := parseIP(sp.ClusterIP); !ok {
		return ref.errorf("spec.clusterIP", fmt.Sprintf("%s is not an IP address", apicheck.Excerpt(sp.ClusterIP)), "e.g. 10.96.0.10, or None for a headless service")
	}
	if len(sp.ClusterIPs) > 2 {
		return ref.errorf("spec.clusterIPs", fmt.Sprintf("%d addresses", len(sp.ClusterIPs)), "at most one of each family")
	}
	for i, ip := range sp.ClusterIPs {
		a, ok := parseIP(ip)
		if !ok {
			return ref.errorf(fmt.Sprintf("spec.clusterIPs[%d]", i), fmt.Sprintf("%s is not an IP address", apicheck.Excerpt(ip)), "")
		}
		if i > 0 && model.FamilyOf(a) == model.FamilyOf(out.clusterIPs[0]) {
			return ref.errorf("spec.clusterIPs[1]", fmt.Sprintf("%s is of the same family as clusterIPs[0]", a), "a dual-stack service has one address of each family")
		}
		out.clusterIPs = append(out.clusterIPs, a)
	}
	if first, _ := parseIP(sp.ClusterIP); first != out.clusterIPs[0] {
		return ref.errorf("spec.clusterIPs[0]", fmt.Sprintf("%s differs from spec.clusterIP %s", out.clusterIPs[0], first), "clusterIPs[0] is clusterIP")
	}
	for i, f := range sp.IPFamilies {
		if i >= len(out.clusterIPs) {
			break
		}
		want := corev1.IPv4Protocol
		if model.FamilyOf(out.clusterIPs[i]) == model.IPv6 {
			want = corev1.IPv6Protocol
		}
		if f != want {
			return ref.errorf(fmt.Sprintf("spec.ipFamilies[%d]", i), fmt.Sprintf("%s, but clusterIPs[%d] %s is %s", f, i, out.clusterIPs[i], want), "list the families in the order of clusterIPs")
		}
	}
	return nil
}

func validatePorts(ref objectRef, s *corev1.Service) error {
	if len(s.Spec.Ports) == 0 && s.Spec.ClusterIP != corev1.ClusterIPNone {
		return ref.errorf("spec.ports", "a Service needs at least one port", "")
	}
	for i, p := range s.Spec.Ports {
		at := func(f string) string { return fmt.Sprintf("spec.ports[%d].%s", i, f) }
		if p.Port < 1 || p.Port > 65535 {
			return ref.errorf(at("port"), fmt.Sprintf("%d is out of range", p.Port), "use 1..65535")
		}
		if p.NodePort < 0 || p.NodePort > 65535 {
			return ref.errorf(at("nodePort"), fmt.Sprintf("%d is out of range", p.NodePort), "use 1..65535 (Kubernetes allocates 30000-32767), or 0 for none")
		}
		switch p.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		default:
			return ref.errorf(at("protocol"), fmt.Sprintf("unknown protocol %s", apicheck.Excerpt(string(p.Protocol))), "use TCP, UDP or SCTP")
		}
		if p.TargetPort.Type == intstr.Int && (p.TargetPort.IntVal < 1 || p.TargetPort.IntVal > 65535) {
			return ref.errorf(at("targetPort"), fmt.Sprintf("%d is out of range", p.TargetPort.IntVal), "use 1..65535 or a container port's name")
		}
	}
	return nil
}

func validatePolicies(ref objectRef, s *corev1.Service) error {
	sp := &s.Spec
	switch sp.SessionAffinity {
	case corev1.ServiceAffinityNone:
	case corev1.ServiceAffinityClientIP:
		if t := *sp.SessionAffinityConfig.ClientIP.TimeoutSeconds; t < 1 || t > maxAffinityTimeout {
			return ref.errorf("spec.sessionAffinityConfig.clientIP.timeoutSeconds", fmt.Sprintf("%d is out of range", t), fmt.Sprintf("use 1..%d", maxAffinityTimeout))
		}
	default:
		return ref.errorf("spec.sessionAffinity", fmt.Sprintf("unknown session affinity %s", apicheck.Excerpt(string(sp.SessionAffinity))), "use None or ClientIP")
	}
	switch sp.ExternalTrafficPolicy {
	case "", corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal:
	default:
		return ref.errorf("spec.externalTrafficPolicy", fmt.Sprintf("unknown policy %s", apicheck.Excerpt(string(sp.ExternalTrafficPolicy))), "use Cluster or Local")
	}
	if p := sp.InternalTrafficPolicy; p != nil && *p != corev1.ServiceInternalTrafficPolicyCluster && *p != corev1.ServiceInternalTrafficPolicyLocal {
		return ref.errorf("spec.internalTrafficPolicy", fmt.Sprintf("unknown policy %s", apicheck.Excerpt(string(*p))), "use Cluster or Local")
	}
	if sp.HealthCheckNodePort < 0 || sp.HealthCheckNodePort > 65535 {
		return ref.errorf("spec.healthCheckNodePort", fmt.Sprintf("%d is out of range", sp.HealthCheckNodePort), "use 1..65535, or 0 for none")
	}
	return nil
}

// The enumerations of a Service the API server checks and svclab copies:
// free text in them is refused (it would leak through Anonymize).
var (
	familyPolicies = []corev1.IPFamilyPolicy{corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack}
	families       = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	distributions  = []string{corev1.ServiceTrafficDistributionPreferClose, corev1.ServiceTrafficDistributionPreferSameZone, corev1.ServiceTrafficDistributionPreferSameNode}
	protocols      = []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}
)

// validateEnums checks ipFamilyPolicy, ipFamilies, trafficDistribution
// and the load-balancer ingress points' ipMode and port protocols.
func validateEnums(ref objectRef, s *corev1.Service) error {
	sp := &s.Spec
	if p := sp.IPFamilyPolicy; p != nil && !slices.Contains(familyPolicies, *p) {
		return ref.errorf("spec.ipFamilyPolicy", "unknown policy "+apicheck.Excerpt(string(*p)), "use SingleStack, PreferDualStack or RequireDualStack")
	}
	for i, f := range sp.IPFamilies {
		if !slices.Contains(families, f) {
			return ref.errorf(fmt.Sprintf("spec.ipFamilies[%d]", i), "unknown family "+apicheck.Excerpt(string(f)), "use IPv4 or IPv6")
		}
	}
	if d := sp.TrafficDistribution; d != nil && !slices.Contains(distributions, *d) {
		return ref.errorf("spec.trafficDistribution", "unknown distribution "+apicheck.Excerpt(*d), "use PreferClose, PreferSameZone or PreferSameNode")
	}
	for i, ing := range s.Status.LoadBalancer.Ingress {
		if m := ing.IPMode; m != nil && *m != corev1.LoadBalancerIPModeVIP && *m != corev1.LoadBalancerIPModeProxy {
			return ref.errorf(fmt.Sprintf("status.loadBalancer.ingress[%d].ipMode", i), "unknown ipMode "+apicheck.Excerpt(string(*m)), "use VIP or Proxy")
		}
		for j, p := range ing.Ports {
			if !slices.Contains(protocols, p.Protocol) {
				return ref.errorf(fmt.Sprintf("status.loadBalancer.ingress[%d].ports[%d].protocol", i, j), "unknown protocol "+apicheck.Excerpt(string(p.Protocol)), "use TCP, UDP or SCTP")
			}
		}
	}
	return nil
}

// toModel builds the model service of a validated Service, before its
// endpoints and target ports are resolved.
func toModel(s *corev1.Service, f serviceFields) model.Service {
	sp := &s.Spec
	out := model.Service{Namespace: s.Namespace, Name: s.Name, Type: model.ServiceType(sp.Type)}
	if sp.Type == corev1.ServiceTypeExternalName {
		return out
	}
	if len(f.clusterIPs) > 0 {
		out.ClusterIP = f.clusterIPs[0]
	}
	if len(f.clusterIPs) > 1 {
		out.SecondaryClusterIP = f.clusterIPs[1]
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		out.Affinity = model.Affinity{ClientIP: true, Timeout: int(*sp.SessionAffinityConfig.ClientIP.TimeoutSeconds)}
	}
	for _, p := range sp.Ports {
		mp := model.Port{Name: p.Name, Protocol: model.Protocol(p.Protocol), Port: int(p.Port), NodePort: int(p.NodePort)}
		if p.TargetPort.Type == intstr.Int {
			mp.TargetPort = int(p.TargetPort.IntVal)
		}
		out.Ports = append(out.Ports, mp)
	}
	out.ExternalIPs = f.externalIPs
	out.LoadBalancerIPs = f.lbIPs
	out.LoadBalancerSourceRanges = f.sourceRanges
	out.ExternalPolicyLocal = externallyAccessible(s) && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	out.InternalPolicyLocal = sp.InternalTrafficPolicy != nil && *sp.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	if sp.Type == corev1.ServiceTypeLoadBalancer && out.ExternalPolicyLocal { // apiservice.NeedsHealthCheck
		out.HealthCheckNodePort = int(sp.HealthCheckNodePort)
	}
	if sp.TrafficDistribution != nil {
		out.TrafficDistribution = *sp.TrafficDistribution
	}
	return out
}

// maxAffinityTimeout is the API's limit on sessionAffinityConfig's timeout
// (core.MaxClientIPServiceAffinitySeconds, one day).
const maxAffinityTimeout = 86400
