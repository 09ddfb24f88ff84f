package objects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

// The checks the API server makes and scenarios make too (sim/apicheck),
// placed at the objects' own field paths.

// checkService runs the shared checks on a Service's model view (before
// its endpoints are resolved) and adds it to set.
func checkService(ref objectRef, ms *model.Service, set *apicheck.Set) error {
	if err := serviceProblem(ref, apicheck.Service(ms)); err != nil {
		return err
	}
	return serviceProblem(ref, set.Add("Service "+ref.name, ms))
}

func serviceProblem(ref objectRef, ps []apicheck.Problem) error {
	if len(ps) == 0 {
		return nil
	}
	p := ps[0]
	var field string
	switch p.Where {
	case apicheck.AtNamespace:
		field = "metadata.namespace"
	case apicheck.AtName:
		field = "metadata.name"
	case apicheck.AtClusterIP:
		field = "spec.clusterIP"
		if p.Index > 0 {
			field = fmt.Sprintf("spec.clusterIPs[%d]", p.Index)
		}
	case apicheck.AtPortName:
		field = fmt.Sprintf("spec.ports[%d].name", p.Index)
	case apicheck.AtPort:
		field = fmt.Sprintf("spec.ports[%d].port", p.Index)
	case apicheck.AtNodePort:
		field = fmt.Sprintf("spec.ports[%d].nodePort", p.Index)
	}
	return ref.errorf(field, p.Msg, p.Hint)
}

// checkSliceMeta checks an EndpointSlice's namespace and name, and the
// Service name its label gives (when it has one).
func checkSliceMeta(ref objectRef, ns, name, svc string) error {
	if msg := apicheck.NamespaceName(ns); msg != "" {
		return ref.errorf("metadata.namespace", "a namespace "+msg, "a DNS-1123 label, e.g. my-namespace")
	}
	if msg := apicheck.ObjectName(name); msg != "" {
		return ref.errorf("metadata.name", "an EndpointSlice name "+msg, "a DNS-1123 subdomain, e.g. web-abc12")
	}
	if msg := apicheck.ServiceName(svc); svc != "" && msg != "" {
		return ref.errorf("metadata.labels[kubernetes.io/service-name]", "a service name "+msg, "the name of the slice's Service")
	}
	return nil
}

// checkSliceEndpoints runs the shared endpoint checks on one slice's
// endpoints; index maps them back to the slice's endpoints[].
func checkSliceEndpoints(ref objectRef, eps []model.Endpoint, index []int, set *apicheck.Set) error {
	for j, e := range eps {
		for _, z := range append(append([]string{e.Zone}, e.ZoneHints...), e.NodeHints...) {
			if msg := apicheck.LabelValue(z); z != "" && msg != "" {
				return ref.errorf(fmt.Sprintf("endpoints[%d]", index[j]), "a zone or hint "+msg, "a label value, e.g. zone-a")
			}
		}
	}
	ps := apicheck.Endpoints(eps, set)
	if len(ps) == 0 {
		return nil
	}
	p := ps[0]
	field := fmt.Sprintf("endpoints[%d].addresses[0]", index[p.Index])
	if p.Where == apicheck.AtEndpointNode {
		field = fmt.Sprintf("endpoints[%d].nodeName", index[p.Index])
	}
	return ref.errorf(field, p.Msg, p.Hint)
}

// checkNode checks a Node's name and zone label.
func checkNode(file string, n *corev1.Node) error {
	ref := objectRef{file: file, kind: "Node", name: n.Name}
	if msg := apicheck.ObjectName(n.Name); msg != "" {
		return ref.errorf("metadata.name", "a node name "+msg, "a DNS-1123 subdomain such as node-1")
	}
	if z := n.Labels[corev1.LabelTopologyZone]; z != "" {
		if msg := apicheck.LabelValue(z); msg != "" {
			return ref.errorf("metadata.labels[topology.kubernetes.io/zone]", "a zone "+msg, "a label value, e.g. zone-a")
		}
	}
	return nil
}
