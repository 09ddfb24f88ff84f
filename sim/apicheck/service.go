package apicheck

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/sim/model"
)

// Service checks one Service: its namespace and name, its clusterIPs
// (primary and secondary; invalid ones are the caller's to report) and its
// ports' names, uniqueness and node ports.
func Service(s *model.Service) []Problem {
	var out []Problem
	if msg := NamespaceName(s.Namespace); msg != "" {
		out = append(out, Problem{AtNamespace, 0, "a namespace " + msg, "a DNS-1123 label, e.g. my-namespace"})
	}
	if msg := ServiceName(s.Name); msg != "" {
		out = append(out, Problem{AtName, 0, "a service name " + msg, "a DNS-1035 label, e.g. my-service"})
	}
	for i, ip := range clusterIPs(s) {
		if why := BadAddress(ip); why != "" {
			out = append(out, Problem{AtClusterIP, i, fmt.Sprintf("%s is %s", ip, why), "a clusterIP is a unicast address of the service CIDR"})
		}
	}
	return append(out, ports(s)...)
}

// clusterIPs returns s's valid clusterIPs, primary first.
func clusterIPs(s *model.Service) []netip.Addr {
	var out []netip.Addr
	for _, ip := range []netip.Addr{s.ClusterIP, s.SecondaryClusterIP} {
		if ip.IsValid() {
			out = append(out, ip)
		}
	}
	return out
}

// ports checks port names (IANA service names, required when there are
// several, unique), port and protocol pairs (unique) and that only
// NodePort and LoadBalancer services have node ports.
func ports(s *model.Service) []Problem {
	var out []Problem
	names := map[string]int{}
	pairs := map[string]int{}
	for j, p := range s.Ports {
		switch {
		case p.Name != "":
			if msg := PortName(p.Name); msg != "" {
				out = append(out, Problem{AtPortName, j, "a port name " + msg, "an IANA service name, e.g. http or metrics-1"})
			}
			if k, dup := names[p.Name]; dup {
				out = append(out, Problem{AtPortName, j, fmt.Sprintf("port name %s is also used by ports[%d]", Excerpt(p.Name), k), "name each port of a service differently"})
			}
			names[p.Name] = j
		case len(s.Ports) > 1:
			out = append(out, Problem{AtPortName, j, "a service with several ports must name each port", ""})
		}
		key := strconv.Itoa(p.Port) + "/" + string(p.Protocol)
		if k, dup := pairs[key]; dup {
			out = append(out, Problem{AtPort, j, fmt.Sprintf("port %s is also ports[%d]", key, k), "each port and protocol once per service"})
		}
		pairs[key] = j
		if p.NodePort != 0 && s.Type != model.NodePort && s.Type != model.LoadBalancer {
			out = append(out, Problem{AtNodePort, j, fmt.Sprintf("nodePort %d on a service of type %s", p.NodePort, typeOf(s)), "set type: NodePort, or remove nodePort"})
		}
	}
	return out
}

func typeOf(s *model.Service) model.ServiceType {
	if s.Type == "" {
		return model.ClusterIP
	}
	return s.Type
}

// Endpoints checks one list of endpoints of a service (a scenario
// service's, or one EndpointSlice's): every address a unicast one, none
// twice in the list, none a clusterIP of a service of set (the service's
// own included), and node names DNS-1123 subdomains. Invalid addresses
// are the caller's to report.
func Endpoints(eps []model.Endpoint, set *Set) []Problem {
	var out []Problem
	seen := make(map[netip.Addr]int, len(eps))
	for j, e := range eps {
		if e.Node != "" {
			if msg := ObjectName(e.Node); msg != "" {
				out = append(out, Problem{AtEndpointNode, j, "a node name " + msg, "a DNS-1123 subdomain such as node-1"})
			}
		}
		if !e.IP.IsValid() {
			continue
		}
		ip := e.IP
		var msg string
		if why := BadAddress(ip); why != "" {
			msg = fmt.Sprintf("%s is %s", ip, why)
		} else if k, dup := seen[ip]; dup {
			msg = fmt.Sprintf("%s is also endpoints[%d]", ip, k)
		} else if owner, ok := set.clusterIPs[ip]; ok {
			msg = fmt.Sprintf("%s is the clusterIP of %s", ip, owner)
		}
		if msg != "" {
			out = append(out, Problem{AtEndpoint, j, msg, "an endpoint is a distinct pod IP, not a service's clusterIP"})
		}
		seen[ip] = j
	}
	return out
}
