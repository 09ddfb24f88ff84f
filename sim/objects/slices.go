package objects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

// sliceEndpoints are one EndpointSlice's model endpoints and port numbers
// by "name/protocol".
type sliceEndpoints struct {
	name      string
	endpoints []model.Endpoint
	index     []int // each endpoint's index in the slice's endpoints[]
	ports     map[string]int
}

// readSlice validates an EndpointSlice as kube-proxy reads it. It returns
// the service it belongs to ("" when kube-proxy ignores the slice).
func (o *Objects) readSlice(es *discoveryv1.EndpointSlice, set *apicheck.Set) (string, sliceEndpoints, error) {
	ref := objectRef{file: o.Source, kind: "EndpointSlice", name: nsName(es.Namespace, es.Name)}
	out := sliceEndpoints{name: es.Name, ports: map[string]int{}}
	svc, ok := es.Labels[discoveryv1.LabelServiceName]
	if err := checkSliceMeta(ref, es.Namespace, es.Name, svc); err != nil {
		return "", out, err
	}
	if !ok || svc == "" {
		o.Warnings = append(o.Warnings, fmt.Sprintf("EndpointSlice %s has no %s label: kube-proxy ignores it", ref.name, discoveryv1.LabelServiceName))
		return "", out, nil
	}
	var fam model.Family
	switch es.AddressType {
	case discoveryv1.AddressTypeIPv4:
		fam = model.IPv4
	case discoveryv1.AddressTypeIPv6:
		fam = model.IPv6
	case discoveryv1.AddressTypeFQDN:
		return "", out, nil // kube-proxy watches IPv4 and IPv6 slices only
	default:
		return "", out, ref.errorf("addressType", fmt.Sprintf("unknown address type %s", apicheck.Excerpt(string(es.AddressType))), "use IPv4, IPv6 or FQDN")
	}
	for i, p := range es.Ports {
		if p.Port == nil || *p.Port == 0 {
			continue // kube-proxy ignores it
		}
		if *p.Port < 1 || *p.Port > 65535 {
			return "", out, ref.errorf(fmt.Sprintf("ports[%d].port", i), fmt.Sprintf("%d is out of range", *p.Port), "use 1..65535")
		}
		key := portKey(*p.Name, corev1.Protocol(*p.Protocol))
		if _, dup := out.ports[key]; !dup {
			out.ports[key] = int(*p.Port)
		}
	}
	for i, e := range es.Endpoints {
		if len(e.Addresses) == 0 {
			continue // kube-proxy ignores it
		}
		ep, err := readEndpoint(ref, i, e, fam)
		if err != nil {
			return "", out, err
		}
		out.endpoints = append(out.endpoints, ep)
		out.index = append(out.index, i)
	}
	if err := checkSliceEndpoints(ref, out.endpoints, out.index, set); err != nil {
		return "", out, err
	}
	return nsName(es.Namespace, svc), out, nil
}

func portKey(name string, proto corev1.Protocol) string { return name + "/" + string(proto) }

// readEndpoint converts one endpoint: its first address (the only one
// kube-proxy uses), conditions read as kube-proxy reads them (nil ready and
// serving are true, nil terminating false), node, zone and hints.
func readEndpoint(ref objectRef, i int, e discoveryv1.Endpoint, fam model.Family) (model.Endpoint, error) {
	field := fmt.Sprintf("endpoints[%d].addresses[0]", i)
	ip, ok := parseIP(e.Addresses[0])
	if !ok {
		return model.Endpoint{}, ref.errorf(field, fmt.Sprintf("%s is not an IP address", apicheck.Excerpt(e.Addresses[0])), "")
	}
	if model.FamilyOf(ip) != fam {
		return model.Endpoint{}, ref.errorf(field, fmt.Sprintf("%s is an %s address in an %s slice", ip, model.FamilyOf(ip), fam), "put each family's endpoints in a slice of its addressType")
	}
	c := e.Conditions
	out := model.Endpoint{
		IP:          ip,
		Ready:       c.Ready == nil || *c.Ready,
		Serving:     c.Serving == nil || *c.Serving,
		Terminating: c.Terminating != nil && *c.Terminating,
	}
	if e.NodeName != nil {
		out.Node = *e.NodeName
	}
	if e.Zone != nil {
		out.Zone = *e.Zone
	}
	if h := e.Hints; h != nil {
		for _, z := range h.ForZones {
			out.ZoneHints = append(out.ZoneHints, z.Name)
		}
		for _, n := range h.ForNodes {
			out.NodeHints = append(out.NodeHints, n.Name)
		}
	}
	return out, nil
}
