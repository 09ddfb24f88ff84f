package objects

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

// convert defaults and validates every object and builds the model.
func (o *Objects) convert() error {
	index := make(map[string]int, len(o.KubeServices))
	models := make([]model.Service, len(o.KubeServices))
	set := apicheck.NewSet()
	for i := range o.KubeServices {
		s := &o.KubeServices[i]
		defaultService(s)
		ref := objectRef{file: o.Source, kind: "Service", name: nsName(s.Namespace, s.Name)}
		f, err := validateService(ref, s)
		if err != nil {
			return err
		}
		if j, dup := index[ref.name]; dup {
			return ref.errorf("metadata.name", fmt.Sprintf("a second Service %s (also object %d)", ref.name, j+1), "each namespace/name once")
		}
		index[ref.name] = i
		models[i] = toModel(s, f)
		if err := checkService(ref, &models[i], set); err != nil {
			return err
		}
	}
	bySvc := make([][]sliceEndpoints, len(o.KubeServices))
	for i := range o.Slices {
		es := &o.Slices[i]
		defaultSlice(es)
		svc, se, err := o.readSlice(es, set)
		if err != nil {
			return err
		}
		if svc == "" {
			continue
		}
		j, ok := index[svc]
		if !ok {
			ref := objectRef{file: o.Source, kind: "EndpointSlice", name: nsName(es.Namespace, es.Name)}
			return ref.errorf("metadata.labels[kubernetes.io/service-name]", fmt.Sprintf("names Service %s, which is not in the file", svc),
				"export the Services with their slices (kubectl get services,endpointslices -A -o yaml), or remove the slice")
		}
		bySvc[j] = append(bySvc[j], se)
	}
	for i := range o.KubeServices {
		ms := models[i]
		o.resolve(&ms, &o.KubeServices[i], bySvc[i])
		o.Services = append(o.Services, ms)
	}
	for i := range o.KubeNodes {
		if err := checkNode(o.Source, &o.KubeNodes[i]); err != nil {
			return err
		}
		o.Nodes = append(o.Nodes, readNode(&o.KubeNodes[i]))
	}
	return nil
}

// resolve gives ms its endpoints (every slice's) and each port the target
// port the slices give it: kube-proxy takes a port's endpoints from the
// slice port of the same name and protocol, whatever spec.targetPort says.
func (o *Objects) resolve(ms *model.Service, s *corev1.Service, slices []sliceEndpoints) {
	if ms.Type == model.ExternalName {
		return
	}
	for _, se := range slices {
		ms.Endpoints = append(ms.Endpoints, se.endpoints...)
	}
	name := nsName(s.Namespace, s.Name)
	for i := range ms.Ports {
		p := &ms.Ports[i]
		key := portKey(p.Name, corev1.Protocol(p.Protocol))
		found := false
		for _, se := range slices {
			n, ok := se.ports[key]
			switch {
			case !ok:
			case !found:
				p.TargetPort, found = n, true
			case n != p.TargetPort:
				o.Warnings = append(o.Warnings, fmt.Sprintf("Service %s port %q: EndpointSlice %s gives port %d, another slice %d; svclab models one target port and uses %d", name, p.Name, se.name, n, p.TargetPort, p.TargetPort))
			}
		}
		if found {
			continue
		}
		if p.TargetPort == 0 { // a named targetPort no slice resolves
			p.TargetPort = p.Port
		}
		if len(ms.Endpoints) > 0 { // kube-proxy has no endpoints for it
			p.Unresolved = true
			o.Warnings = append(o.Warnings, fmt.Sprintf("Service %s port %q: no EndpointSlice port of that name and protocol, so kube-proxy has no endpoints for it and rejects its traffic", name, p.Name))
		}
	}
}

// IgnoredLine says, in one line, which objects of other kinds were
// ignored ("" when none was).
func (o *Objects) IgnoredLine() string {
	if len(o.Ignored) == 0 {
		return ""
	}
	total := 0
	for _, n := range o.Ignored {
		total += n
	}
	noun := "objects"
	if total == 1 {
		noun = "object"
	}
	return fmt.Sprintf("%s: ignored %d %s of other kinds (%s)", o.Source, total, noun, countList(o.Ignored))
}
