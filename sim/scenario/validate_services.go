package scenario

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

type atFunc = func(keys ...any) func(string, string) pathError

func validateServices(f *file, cidrs clusterCIDRs) []pathError {
	var errs []pathError
	names := map[string]int{}
	ips := map[netip.Addr]int{}
	nodePorts := map[int]int{}
	for i := range f.Services {
		s := &f.Services[i]
		at := func(keys ...any) func(string, string) pathError {
			return fieldAt(append([]any{"services", i}, keys...)...)
		}
		errs = append(errs, validateService(s, cidrs, at)...)
		key := s.Namespace + "/" + s.Name
		if j, dup := names[key]; dup {
			errs = append(errs, at("name")(fmt.Sprintf("duplicate service %s (also services[%d])", key, j), "give each service a unique namespace/name"))
		}
		names[key] = i
		if ip, err := netip.ParseAddr(s.ClusterIP); err == nil {
			if j, dup := ips[ip]; dup {
				errs = append(errs, at("clusterIP")(fmt.Sprintf("clusterIP %s is also used by services[%d]", ip, j), "each service needs its own clusterIP"))
			}
			ips[ip] = i
		}
		for j, p := range s.Ports {
			if k, dup := nodePorts[p.NodePort]; dup && p.NodePort != 0 {
				errs = append(errs, at("ports", j, "nodePort")(fmt.Sprintf("nodePort %d is also used by services[%d]", p.NodePort, k), "each node port belongs to one service"))
			}
			nodePorts[p.NodePort] = i
		}
	}
	errs = append(errs, validateEndpoints(f, cidrs, ips)...)
	return errs
}

func validateService(s *service, cidrs clusterCIDRs, at atFunc) []pathError {
	var errs []pathError
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if msg := dns1123Label(s.Namespace); msg != "" {
		errs = append(errs, at("namespace")(fmt.Sprintf("%q: a namespace %s", s.Namespace, msg), "a DNS-1123 label, e.g. my-namespace"))
	}
	if s.Name == "" {
		errs = append(errs, at("name")("a service needs a name", ""))
	} else if msg := dns1035Label(s.Name); msg != "" {
		errs = append(errs, at("name")(fmt.Sprintf("%q: a service name %s", s.Name, msg), "a DNS-1035 label, e.g. my-service"))
	}
	if ip, err := netip.ParseAddr(s.ClusterIP); err != nil || !ip.Is4() {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%q is not an IPv4 address", s.ClusterIP), "svclab renders IPv4 services; e.g. clusterIP: 10.96.0.10"))
	} else if why := badIP(ip); why != "" {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%s is %s", ip, why), "a clusterIP is a unicast address in cluster.serviceCIDR"))
	} else if !cidrs.service.Contains(ip) {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%s is outside the service CIDR %s", ip, cidrs.service), "pick an address in cluster.serviceCIDR or widen it"))
	}
	switch s.Type {
	case "":
		s.Type = string(model.ClusterIP)
	case string(model.ClusterIP), string(model.NodePort):
	default:
		errs = append(errs, at("type")(fmt.Sprintf("unknown type %q", s.Type), "use ClusterIP or NodePort"))
	}
	switch s.SessionAffinity {
	case "", "None":
	case "ClientIP":
		errs = append(errs, intField(&s.SessionAffinityTimeout, "services[].sessionAffinityTimeout", at("sessionAffinityTimeout"))...)
	default:
		errs = append(errs, at("sessionAffinity")(fmt.Sprintf("unknown session affinity %q", s.SessionAffinity), "use None or ClientIP"))
	}
	if len(s.Ports) == 0 {
		errs = append(errs, at("ports")("a service needs at least one port", "e.g. ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]"))
	}
	names := map[string]int{}
	ports := map[string]int{}
	for j := range s.Ports {
		p := &s.Ports[j]
		pat := func(k string) func(string, string) pathError { return at("ports", j, k) }
		errs = append(errs, validatePort(s, p, pat)...)
		if k, dup := names[p.Name]; dup && p.Name != "" {
			errs = append(errs, pat("name")(fmt.Sprintf("port name %q is also used by ports[%d]", p.Name, k), "name each port of a service differently"))
		}
		names[p.Name] = j
		key := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if k, dup := ports[key]; dup {
			errs = append(errs, pat("port")(fmt.Sprintf("port %s is also ports[%d]", key, k), "each port and protocol once per service"))
		}
		ports[key] = j
	}
	return errs
}

func validatePort(s *service, p *port, at func(key string) func(string, string) pathError) []pathError {
	var errs []pathError
	if p.Name != "" {
		if msg := ianaServiceName(p.Name); msg != "" {
			errs = append(errs, at("name")(fmt.Sprintf("%q: a port name %s", p.Name, msg), "an IANA service name, e.g. http or metrics-1"))
		}
	} else if len(s.Ports) > 1 {
		errs = append(errs, at("name")("a service with several ports must name each port", ""))
	}
	if p.Protocol == "" {
		p.Protocol = string(model.TCP)
	}
	switch strings.ToUpper(p.Protocol) {
	case "TCP", "UDP", "SCTP":
		p.Protocol = strings.ToUpper(p.Protocol)
	default:
		errs = append(errs, at("protocol")(fmt.Sprintf("unknown protocol %q", p.Protocol), "use TCP, UDP or SCTP"))
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
	case p.NodePort != 0:
		errs = append(errs, at("nodePort")(fmt.Sprintf("nodePort %d on a service of type %s", p.NodePort, s.Type), "set type: NodePort, or remove nodePort"))
	}
	return errs
}

// validateEndpoints checks every endpoint against its service, the other
// services' clusterIPs, the service CIDR and the lab's client pod, and
// counts the pods a lab would create.
func validateEndpoints(f *file, cidrs clusterCIDRs, clusterIPs map[netip.Addr]int) []pathError {
	var errs []pathError
	client := netip.MustParseAddr(ClientPodIP)
	pods := map[netip.Addr]bool{}
	for i := range f.Services {
		seen := map[netip.Addr]int{}
		for j, e := range f.Services[i].Endpoints {
			at := fieldAt("services", i, "endpoints", j)
			ip, err := netip.ParseAddr(e.IP)
			if err != nil || !ip.Is4() {
				errs = append(errs, at(fmt.Sprintf("%q is not an IPv4 address", e.IP), "an endpoint is a pod IP such as 10.244.0.5"))
				continue
			}
			var msg string
			if why := badIP(ip); why != "" {
				msg = fmt.Sprintf("%s is %s", ip, why)
			} else if k, dup := seen[ip]; dup {
				msg = fmt.Sprintf("%s is also endpoints[%d] of this service", ip, k)
			} else if k, ok := clusterIPs[ip]; ok {
				msg = fmt.Sprintf("%s is the clusterIP of services[%d]", ip, k)
			} else if cidrs.service.Contains(ip) {
				msg = fmt.Sprintf("%s is inside the service CIDR %s", ip, cidrs.service)
			} else if ip == client {
				msg = fmt.Sprintf("%s is the lab client pod's address", ip)
			}
			if msg != "" {
				errs = append(errs, at(msg, "an endpoint is a distinct pod IP outside cluster.serviceCIDR, e.g. 10.244.0.5"))
			}
			seen[ip] = j
			pods[ip] = true
			if e.Node != "" {
				if m := dns1123Subdomain(e.Node); m != "" {
					errs = append(errs, fieldAt("services", i, "endpoints", j, "node")(fmt.Sprintf("%q: a node name %s", e.Node, m), "a DNS-1123 subdomain such as node-1"))
				}
			}
		}
	}
	if len(pods) > MaxLabPods && !f.Lab.AllowLargeLabs {
		errs = append(errs, fieldAt("services")(fmt.Sprintf("%d distinct endpoint IPs: a lab makes each a pod (a network namespace), more than the %d this machine is known to hold", len(pods), MaxLabPods),
			"set lab.allowLargeLabs: true to build it anyway, or use synthetic: services for rules without pods"))
	}
	return errs
}
