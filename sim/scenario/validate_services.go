package scenario

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
)

type atFunc = func(keys ...any) func(string, string) pathError

func validateServices(f *file, cidrs clusterCIDRs) []pathError {
	var errs []pathError
	names := map[string]int{}
	set := apicheck.NewSet()
	for i := range f.Services {
		s := &f.Services[i]
		at := func(keys ...any) func(string, string) pathError {
			return fieldAt(append([]any{"services", i}, keys...)...)
		}
		errs = append(errs, validateService(s, cidrs, at)...)
		key := s.Namespace + "/" + s.Name
		if j, dup := names[key]; dup {
			errs = append(errs, at("name")(fmt.Sprintf("duplicate service %s (also services[%d])", apicheck.Show(key), j), "give each service a unique namespace/name"))
		}
		names[key] = i
		view := checkView(s)
		errs = append(errs, problems(set.Add(fmt.Sprintf("services[%d]", i), &view), at)...)
	}
	errs = append(errs, validateEndpoints(f, cidrs, set)...)
	return errs
}

// checkView is what the shared checks (sim/apicheck) read of a service:
// its names, type, ports and parsed addresses (invalid where they do not
// parse; those are reported here).
func checkView(s *service) model.Service {
	v := model.Service{Namespace: s.Namespace, Name: s.Name, Type: model.ServiceType(s.Type)}
	if ip, err := netip.ParseAddr(s.ClusterIP); err == nil && ip.Is4() {
		v.ClusterIP = ip
	}
	for _, p := range s.Ports {
		v.Ports = append(v.Ports, model.Port{Name: p.Name, Protocol: model.Protocol(p.Protocol), Port: p.Port, NodePort: p.NodePort})
	}
	for _, e := range s.Endpoints {
		ip, err := netip.ParseAddr(e.IP)
		if err != nil || !ip.Is4() {
			ip = netip.Addr{}
		}
		v.Endpoints = append(v.Endpoints, model.Endpoint{IP: ip, Node: e.Node})
	}
	return v
}

// problems places the shared checks' problems at their fields of the
// services: section.
func problems(ps []apicheck.Problem, at atFunc) []pathError {
	var errs []pathError
	for _, p := range ps {
		var keys []any
		switch p.Where {
		case apicheck.AtNamespace:
			keys = []any{"namespace"}
		case apicheck.AtName:
			keys = []any{"name"}
		case apicheck.AtClusterIP:
			keys = []any{"clusterIP"}
		case apicheck.AtPortName:
			keys = []any{"ports", p.Index, "name"}
		case apicheck.AtPort:
			keys = []any{"ports", p.Index, "port"}
		case apicheck.AtNodePort:
			keys = []any{"ports", p.Index, "nodePort"}
		case apicheck.AtEndpoint:
			keys = []any{"endpoints", p.Index}
		case apicheck.AtEndpointNode:
			keys = []any{"endpoints", p.Index, "node"}
		}
		errs = append(errs, at(keys...)(p.Msg, p.Hint))
	}
	return errs
}

func validateService(s *service, cidrs clusterCIDRs, at atFunc) []pathError {
	var errs []pathError
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if s.Name == "" {
		errs = append(errs, at("name")("a service needs a name", ""))
	}
	if ip, err := netip.ParseAddr(s.ClusterIP); err != nil || !ip.Is4() {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%s is not an IPv4 address", apicheck.Excerpt(s.ClusterIP)), "a scenario's clusterIP is the service's IPv4 address, e.g. clusterIP: 10.96.0.10; IPv6 and dual-stack services come from synthetic.mix.families or a kubectl objects file"))
	} else if apicheck.BadAddress(ip) == "" && !cidrs.service.Contains(ip) {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%s is outside the service CIDR %s", ip, cidrs.service), "pick an address in cluster.serviceCIDR or widen it"))
	}
	switch s.Type {
	case "":
		s.Type = string(model.ClusterIP)
	case string(model.ClusterIP), string(model.NodePort):
	default:
		errs = append(errs, at("type")(fmt.Sprintf("unknown type %s", apicheck.Excerpt(s.Type)), "use ClusterIP or NodePort"))
	}
	switch s.SessionAffinity {
	case "", "None":
	case "ClientIP":
		errs = append(errs, intField(&s.SessionAffinityTimeout, "services[].sessionAffinityTimeout", at("sessionAffinityTimeout"))...)
	default:
		errs = append(errs, at("sessionAffinity")(fmt.Sprintf("unknown session affinity %s", apicheck.Excerpt(s.SessionAffinity)), "use None or ClientIP"))
	}
	if len(s.Ports) == 0 {
		errs = append(errs, at("ports")("a service needs at least one port", "e.g. ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]"))
	}
	for j := range s.Ports {
		p := &s.Ports[j]
		errs = append(errs, validatePort(s, p, func(k string) func(string, string) pathError { return at("ports", j, k) })...)
	}
	view := checkView(s)
	return append(errs, problems(apicheck.Service(&view), at)...)
}

func validatePort(s *service, p *port, at func(key string) func(string, string) pathError) []pathError {
	var errs []pathError
	if p.Protocol == "" {
		p.Protocol = string(model.TCP)
	}
	switch strings.ToUpper(p.Protocol) {
	case "TCP", "UDP", "SCTP":
		p.Protocol = strings.ToUpper(p.Protocol)
	default:
		errs = append(errs, at("protocol")(fmt.Sprintf("unknown protocol %s", apicheck.Excerpt(p.Protocol)), "use TCP, UDP or SCTP"))
	}
	errs = append(errs, checkRange(p.Port, rangeOf("services[].ports[].port"), at("port"))...)
	if p.TargetPort == nil {
		p.TargetPort = &p.Port
	}
	errs = append(errs, checkRange(*p.TargetPort, rangeOf("services[].ports[].targetPort"), at("targetPort"))...)
	switch {
	case s.Type == string(model.NodePort):
		if p.NodePort < 1 || p.NodePort > 65535 {
			errs = append(errs, at("nodePort")(fmt.Sprintf("nodePort %d is out of range", p.NodePort), "a NodePort service needs nodePort in 1..65535 (Kubernetes uses 30000-32767)"))
		}
	}
	return errs
}

// validateEndpoints checks every endpoint against its service, every
// service's clusterIP (set), the service CIDR and the lab's client pod, and
// counts the pods a lab would create.
func validateEndpoints(f *file, cidrs clusterCIDRs, set *apicheck.Set) []pathError {
	var errs []pathError
	client := netip.MustParseAddr(ClientPodIP)
	pods := map[netip.Addr]bool{}
	for i := range f.Services {
		at := func(keys ...any) func(string, string) pathError {
			return fieldAt(append([]any{"services", i}, keys...)...)
		}
		view := checkView(&f.Services[i])
		shared := apicheck.Endpoints(view.Endpoints, set)
		errs = append(errs, problems(shared, at)...)
		reported := map[int]bool{}
		for _, p := range shared {
			if p.Where == apicheck.AtEndpoint {
				reported[p.Index] = true
			}
		}
		for j, e := range f.Services[i].Endpoints {
			ip := view.Endpoints[j].IP
			if !ip.IsValid() {
				errs = append(errs, at("endpoints", j)(fmt.Sprintf("%s is not an IPv4 address", apicheck.Excerpt(e.IP)), "an endpoint is a pod IP such as 10.244.0.5"))
				continue
			}
			pods[ip] = true
			if reported[j] {
				continue
			}
			if cidrs.service.Contains(ip) {
				errs = append(errs, at("endpoints", j)(fmt.Sprintf("%s is inside the service CIDR %s", ip, cidrs.service), "an endpoint is a distinct pod IP outside cluster.serviceCIDR, e.g. 10.244.0.5"))
			} else if ip == client {
				errs = append(errs, at("endpoints", j)(fmt.Sprintf("%s is the lab client pod's address", ip), "an endpoint is a distinct pod IP outside cluster.serviceCIDR, e.g. 10.244.0.5"))
			}
		}
	}
	if len(pods) > MaxLabPods && !f.Lab.AllowLargeLabs {
		errs = append(errs, fieldAt("services")(fmt.Sprintf("%d distinct endpoint IPs: a lab makes each a pod (a network namespace), more than the %d this machine is known to hold", len(pods), MaxLabPods),
			"set lab.allowLargeLabs: true to build it anyway, or use synthetic: services for rules without pods"))
	}
	return errs
}
