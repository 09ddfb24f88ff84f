package objects

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Anonymize returns a copy of o's objects that keeps what shapes the rules
// and hides the rest: every name (namespaces, services, slices, nodes,
// ports, zones, hostnames) replaced by a keyed hash, every address remapped
// by a keyed prefix-preserving permutation of its family (two addresses
// that share their first k bits still do, so subnets stay subnets; the
// first 8 bits of IPv4 and 16 of IPv6 are kept, so loopback, private and
// multicast ranges stay what they are), and everything else kube-proxy does
// not read dropped (annotations, other labels, selectors, owner references,
// target references, node status other than addresses). Document order is
// kept, so the copy selects the same local node. The same key gives the
// same copy.
func Anonymize(o *Objects, key []byte) []any {
	a := &anonymizer{key: key, addrs: map[netip.Addr]netip.Addr{}}
	var out []any
	for i := range o.KubeServices {
		out = append(out, a.service(&o.KubeServices[i]))
	}
	for i := range o.Slices {
		out = append(out, a.slice(&o.Slices[i]))
	}
	for i := range o.KubeNodes {
		out = append(out, a.node(&o.KubeNodes[i]))
	}
	return out
}

type anonymizer struct {
	key   []byte
	addrs map[netip.Addr]netip.Addr
}

func (a *anonymizer) mac(parts ...string) []byte {
	h := hmac.New(sha256.New, a.key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// name hashes s into prefix + 10 hex digits ("" stays "").
func (a *anonymizer) name(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + hex.EncodeToString(a.mac("name", s))[:10]
}

// port hashes a port name into a valid IANA service name ("p" + 8 hex).
func (a *anonymizer) port(s string) string {
	if s == "" {
		return ""
	}
	return "p" + hex.EncodeToString(a.mac("port", s))[:8]
}

// addr remaps an address (one that does not parse is hashed as a name).
func (a *anonymizer) addr(s string) string {
	ip, ok := parseIP(s)
	if !ok {
		return a.name("x", s)
	}
	return a.mapAddr(ip).String()
}

func (a *anonymizer) mapAddr(ip netip.Addr) netip.Addr {
	if m, ok := a.addrs[ip]; ok {
		return m
	}
	b := ip.AsSlice()
	keep := 8
	if ip.Is6() {
		keep = 16
	}
	out := make([]byte, len(b))
	copy(out, b)
	for i := keep; i < len(b)*8; i++ {
		// flip bit i by a function of the original's first i bits
		prefix := netip.PrefixFrom(ip, i).Masked().String()
		if a.mac("addr", prefix)[0]&1 == 1 {
			out[i/8] ^= 0x80 >> (i % 8)
		}
	}
	m, _ := netip.AddrFromSlice(out)
	a.addrs[ip] = m
	return m
}

func (a *anonymizer) cidr(s string) string {
	p, ok := parseCIDR(s)
	if !ok {
		return s
	}
	return netip.PrefixFrom(a.mapAddr(p.Addr()), p.Bits()).Masked().String()
}

func (a *anonymizer) meta(m metav1.ObjectMeta, prefix string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: a.name("ns-", m.Namespace), Name: a.name(prefix, m.Name)}
}

// service copies what kube-proxy reads of a Service, field by field (a
// field added to the API is left out until it is added here): names and
// addresses hidden, enumerations (validated at load) and numbers kept.
func (a *anonymizer) service(s *corev1.Service) *corev1.Service {
	out := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: a.meta(s.ObjectMeta, "svc-")}
	in := &s.Spec
	sp := corev1.ServiceSpec{
		Type: in.Type, ClusterIP: a.keepNone(in.ClusterIP),
		IPFamilies: in.IPFamilies, IPFamilyPolicy: in.IPFamilyPolicy,
		SessionAffinity: in.SessionAffinity, SessionAffinityConfig: in.SessionAffinityConfig,
		ExternalTrafficPolicy: in.ExternalTrafficPolicy, InternalTrafficPolicy: in.InternalTrafficPolicy,
		HealthCheckNodePort: in.HealthCheckNodePort, PublishNotReadyAddresses: in.PublishNotReadyAddresses,
		AllocateLoadBalancerNodePorts: in.AllocateLoadBalancerNodePorts, TrafficDistribution: in.TrafficDistribution,
	}
	for _, ip := range in.ClusterIPs {
		sp.ClusterIPs = append(sp.ClusterIPs, a.keepNone(ip))
	}
	for _, ip := range in.ExternalIPs {
		sp.ExternalIPs = append(sp.ExternalIPs, a.addr(ip))
	}
	for _, r := range in.LoadBalancerSourceRanges {
		sp.LoadBalancerSourceRanges = append(sp.LoadBalancerSourceRanges, a.cidr(r))
	}
	if in.LoadBalancerIP != "" {
		sp.LoadBalancerIP = a.addr(in.LoadBalancerIP)
	}
	if in.ExternalName != "" {
		sp.ExternalName = a.name("h", in.ExternalName) + ".example"
	}
	for _, p := range in.Ports {
		n := corev1.ServicePort{Name: a.port(p.Name), Protocol: p.Protocol, Port: p.Port, TargetPort: p.TargetPort, NodePort: p.NodePort}
		if p.TargetPort.Type == intstr.String {
			n.TargetPort = intstr.FromString(a.port(p.TargetPort.StrVal))
		}
		sp.Ports = append(sp.Ports, n)
	}
	out.Spec = sp
	for _, ing := range s.Status.LoadBalancer.Ingress {
		n := corev1.LoadBalancerIngress{IPMode: ing.IPMode}
		if ing.IP != "" {
			n.IP = a.addr(ing.IP)
		}
		if ing.Hostname != "" {
			n.Hostname = a.name("h", ing.Hostname) + ".example"
		}
		for _, p := range ing.Ports { // error is free text a cloud controller writes: dropped
			n.Ports = append(n.Ports, corev1.PortStatus{Port: p.Port, Protocol: p.Protocol})
		}
		out.Status.LoadBalancer.Ingress = append(out.Status.LoadBalancer.Ingress, n)
	}
	return out
}

func (a *anonymizer) keepNone(ip string) string {
	if ip == "" || ip == corev1.ClusterIPNone {
		return ip
	}
	return a.addr(ip)
}

func (a *anonymizer) slice(es *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	out := &discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: a.meta(es.ObjectMeta, "es-"), AddressType: es.AddressType}
	if svc, ok := es.Labels[discoveryv1.LabelServiceName]; ok {
		out.Labels = map[string]string{discoveryv1.LabelServiceName: a.name("svc-", svc)}
	}
	for _, p := range es.Ports {
		n := p.DeepCopy()
		n.AppProtocol = nil
		if n.Name != nil {
			name := a.port(*n.Name)
			n.Name = &name
		}
		out.Ports = append(out.Ports, *n)
	}
	for _, e := range es.Endpoints {
		n := discoveryv1.Endpoint{Conditions: e.Conditions}
		for _, ad := range e.Addresses {
			if es.AddressType == discoveryv1.AddressTypeFQDN {
				n.Addresses = append(n.Addresses, a.name("h", ad)+".example")
			} else {
				n.Addresses = append(n.Addresses, a.addr(ad))
			}
		}
		n.NodeName = a.namePtr("node-", e.NodeName)
		n.Zone = a.namePtr("zone-", e.Zone)
		if h := e.Hints; h != nil {
			n.Hints = &discoveryv1.EndpointHints{}
			for _, z := range h.ForZones {
				n.Hints.ForZones = append(n.Hints.ForZones, discoveryv1.ForZone{Name: a.name("zone-", z.Name)})
			}
			for _, z := range h.ForNodes {
				n.Hints.ForNodes = append(n.Hints.ForNodes, discoveryv1.ForNode{Name: a.name("node-", z.Name)})
			}
		}
		out.Endpoints = append(out.Endpoints, n)
	}
	return out
}

func (a *anonymizer) namePtr(prefix string, s *string) *string {
	if s == nil {
		return nil
	}
	v := a.name(prefix, *s)
	return &v
}

func (a *anonymizer) node(n *corev1.Node) *corev1.Node {
	out := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: a.name("node-", n.Name)}}
	if z, ok := n.Labels[corev1.LabelTopologyZone]; ok {
		out.Labels = map[string]string{corev1.LabelTopologyZone: a.name("zone-", z)}
	}
	for _, ad := range n.Status.Addresses {
		if ad.Type == corev1.NodeInternalIP || ad.Type == corev1.NodeExternalIP {
			out.Status.Addresses = append(out.Status.Addresses, corev1.NodeAddress{Type: ad.Type, Address: a.addr(ad.Address)})
		}
	}
	return out
}
