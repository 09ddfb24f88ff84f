package scenario

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// validate fills defaults and returns every problem found, in document order.
func validate(f *file) []pathError {
	var errs []pathError
	errs = append(errs, validateCluster(&f.Cluster)...)
	errs = append(errs, validateServices(f)...)
	if f.Synthetic != nil {
		errs = append(errs, validateSynthetic(f)...)
	}
	if _, err := model.ParsePosition(f.Placement); err != nil {
		errs = append(errs, fieldAt("placement")(err.Error(), ""))
	}
	if f.Fairness != nil {
		errs = append(errs, validateFairness(f.Fairness)...)
	}
	if f.Sweep != nil {
		errs = append(errs, validateSweep(f.Sweep)...)
	}
	if len(f.Services) == 0 && f.Synthetic == nil && f.Sweep == nil {
		errs = append(errs, fieldAt()("the scenario has no services", "list services:, ask for synthetic:, or define a sweep:"))
	}
	return errs
}

func validateCluster(c *clusterSpec) []pathError {
	var errs []pathError
	defaults := []struct {
		key   string
		field *string
		def   string
	}{
		{"clusterCIDR", &c.ClusterCIDR, "10.0.0.0/8"},
		{"serviceCIDR", &c.ServiceCIDR, "10.96.0.0/12"},
		{"podCIDR", &c.PodCIDR, model.DefaultPodCIDR.String()},
		{"fillerCIDR", &c.FillerCIDR, model.DefaultEndpointCIDR.String()},
	}
	for _, d := range defaults {
		if *d.field == "" {
			*d.field = d.def
		}
		if p, err := netip.ParsePrefix(*d.field); err != nil || !p.Addr().Is4() {
			errs = append(errs, fieldAt("cluster", d.key)(fmt.Sprintf("%q is not an IPv4 CIDR", *d.field), "e.g. "+d.def))
		}
	}
	if c.MasqueradeBit == nil {
		bit := 14
		c.MasqueradeBit = &bit
	} else if *c.MasqueradeBit < 0 || *c.MasqueradeBit > 31 {
		errs = append(errs, fieldAt("cluster", "masqueradeBit")(fmt.Sprintf("%d is out of range", *c.MasqueradeBit), "use 0..31; kube-proxy's default is 14"))
	}
	return errs
}

func validateServices(f *file) []pathError {
	var errs []pathError
	names := map[string]int{}
	ips := map[string]int{}
	for i := range f.Services {
		s := &f.Services[i]
		at := func(keys ...any) func(string, string) pathError {
			return fieldAt(append([]any{"services", i}, keys...)...)
		}
		errs = append(errs, validateService(s, at)...)
		key := s.Namespace + "/" + s.Name
		if j, dup := names[key]; dup {
			errs = append(errs, at("name")(fmt.Sprintf("duplicate service %s (also services[%d])", key, j), "give each service a unique namespace/name"))
		}
		names[key] = i
		if j, dup := ips[s.ClusterIP]; dup && s.ClusterIP != "" {
			errs = append(errs, at("clusterIP")(fmt.Sprintf("clusterIP %s is also used by services[%d]", s.ClusterIP, j), "each service needs its own clusterIP"))
		}
		ips[s.ClusterIP] = i
	}
	return errs
}

func validateService(s *service, at func(keys ...any) func(string, string) pathError) []pathError {
	var errs []pathError
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if s.Name == "" {
		errs = append(errs, at("name")("a service needs a name", ""))
	}
	if ip, err := netip.ParseAddr(s.ClusterIP); err != nil || !ip.Is4() {
		errs = append(errs, at("clusterIP")(fmt.Sprintf("%q is not an IPv4 address", s.ClusterIP), "svclab renders IPv4 services; e.g. clusterIP: 10.96.0.10"))
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
		if s.SessionAffinityTimeout == 0 {
			s.SessionAffinityTimeout = model.DefaultAffinityTimeout
		}
		if s.SessionAffinityTimeout < 1 || s.SessionAffinityTimeout > 86400 {
			errs = append(errs, at("sessionAffinityTimeout")(fmt.Sprintf("%d is out of range", s.SessionAffinityTimeout), "use 1..86400 seconds"))
		}
	default:
		errs = append(errs, at("sessionAffinity")(fmt.Sprintf("unknown session affinity %q", s.SessionAffinity), "use None or ClientIP"))
	}
	if len(s.Ports) == 0 {
		errs = append(errs, at("ports")("a service needs at least one port", "e.g. ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]"))
	}
	for j := range s.Ports {
		errs = append(errs, validatePort(s, &s.Ports[j], func(k string) func(string, string) pathError { return at("ports", j, k) })...)
	}
	for j, e := range s.Endpoints {
		if ip, err := netip.ParseAddr(e.IP); err != nil || !ip.Is4() {
			errs = append(errs, at("endpoints", j)(fmt.Sprintf("%q is not an IPv4 address", e.IP), "an endpoint is a pod IP such as 10.244.0.5"))
		}
	}
	return errs
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
		errs = append(errs, at("protocol")(fmt.Sprintf("unknown protocol %q", p.Protocol), "use TCP, UDP or SCTP"))
	}
	if p.Port < 1 || p.Port > 65535 {
		errs = append(errs, at("port")(fmt.Sprintf("port %d is out of range", p.Port), "use 1..65535"))
	}
	if p.TargetPort == 0 {
		p.TargetPort = p.Port
	}
	if p.TargetPort < 1 || p.TargetPort > 65535 {
		errs = append(errs, at("targetPort")(fmt.Sprintf("targetPort %d is out of range", p.TargetPort), "use 1..65535"))
	}
	if s.Type == string(model.NodePort) && (p.NodePort < 1 || p.NodePort > 65535) {
		errs = append(errs, at("nodePort")(fmt.Sprintf("nodePort %d is out of range", p.NodePort), "a NodePort service needs nodePort in 1..65535 (Kubernetes uses 30000-32767)"))
	}
	if len(s.Ports) > 1 && p.Name == "" {
		errs = append(errs, at("name")("a service with several ports must name each port", ""))
	}
	return errs
}
