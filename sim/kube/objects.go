package kube

import (
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/svclab/svclab/sim/model"
)

// SliceSuffix names a service's one EndpointSlice: "<service>-svclab".
const SliceSuffix = "-svclab"

// Service returns the v1 Service kube-proxy would receive for s, with the
// defaults the API server fills in (SessionAffinity None, cluster traffic
// policies, IPv4 single stack).
func Service(s *model.Service) *v1.Service {
	cluster := v1.ServiceInternalTrafficPolicyCluster
	svc := &v1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name},
		Spec: v1.ServiceSpec{
			Type:                  v1.ServiceTypeClusterIP,
			ClusterIP:             s.ClusterIP.String(),
			ClusterIPs:            []string{s.ClusterIP.String()},
			IPFamilies:            []v1.IPFamily{v1.IPv4Protocol},
			SessionAffinity:       v1.ServiceAffinityNone,
			InternalTrafficPolicy: &cluster,
		},
	}
	if s.Type == model.NodePort {
		svc.Spec.Type = v1.ServiceTypeNodePort
		svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
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
		if s.Type == model.NodePort {
			sp.NodePort = int32(p.NodePort)
		}
		svc.Spec.Ports = append(svc.Spec.Ports, sp)
	}
	return svc
}

// EndpointSlice returns the one IPv4 EndpointSlice that carries s's
// endpoints: every endpoint with its three conditions and node name, and
// one slice port per service port (the service port's name and protocol,
// its target port as the port number).
func EndpointSlice(s *model.Service) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.Namespace,
			Name:      s.Name + SliceSuffix,
			Labels:    map[string]string{discoveryv1.LabelServiceName: s.Name},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for _, p := range s.Ports {
		name, proto, port := p.Name, v1.Protocol(p.Protocol), int32(p.TargetPort)
		es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: &name, Protocol: &proto, Port: &port})
	}
	for _, e := range s.Endpoints {
		ready, serving, terminating := e.Ready, e.Serving, e.Terminating
		ep := discoveryv1.Endpoint{
			Addresses: []string{e.IP.String()},
			Conditions: discoveryv1.EndpointConditions{
				Ready: &ready, Serving: &serving, Terminating: &terminating,
			},
		}
		if e.Node != "" {
			node := e.Node
			ep.NodeName = &node
		}
		es.Endpoints = append(es.Endpoints, ep)
	}
	return es
}

// Objects returns every service of l and its EndpointSlice, in model order.
func Objects(l model.List) ([]v1.Service, []discoveryv1.EndpointSlice) {
	svcs := make([]v1.Service, 0, l.Len())
	slices := make([]discoveryv1.EndpointSlice, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		svcs = append(svcs, *Service(s))
		slices = append(slices, *EndpointSlice(s))
	}
	return svcs, slices
}

// Key names a service as kube-proxy's NamespacedName does: "ns/name".
func Key(s *model.Service) string { return s.Namespace + "/" + s.Name }

func metav1TypeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
