package nftables

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
)

// servicePort is one port of a service with every name and string its
// rules need, computed once (each name costs a sha256).
type servicePort struct {
	portName  string // "ns/svc:port", kube-proxy's ServicePortName
	proto     string // "tcp"
	clusterIP string
	port      string
	nodePort  string // "" unless the service is a NodePort
	svcChain  string // service-HASH-ns/svc/proto/port
	extChain  string // external-HASH-ns/svc/proto/port
	affinity  bool
	timeout   string // affinity timeout, e.g. "10800s"
	endpoints []endpoint
}

// endpoint is one endpoint kube-proxy routes a service port to.
type endpoint struct {
	addr     netip.Addr
	ip       string // "10.0.3.2"
	port     string // "80"
	hostPort string // "10.0.3.2:80"
	portNum  int
	local    bool   // on the rendered node
	chain    string // endpoint-HASH-ns/svc/proto/port__IP/port
	affinity string // affinity-HASH-ns/svc/proto/port__IP/port
}

// hasEndpoints is kube-proxy's hasEndpoints for the Cluster traffic policy.
func (sp *servicePort) hasEndpoints() bool { return len(sp.endpoints) > 0 }

// key is the service-ips / no-endpoint-services element key.
func (sp *servicePort) key() string { return sp.clusterIP + " . " + sp.proto + " . " + sp.port }

// nodePortKey is the service-nodeports / no-endpoint-nodeports element key.
func (sp *servicePort) nodePortKey() string { return sp.proto + " . " + sp.nodePort }

// newServicePort computes the names of port p of service s, rendered for
// node (which decides which endpoints are local). Endpoint chain and
// affinity set names (a sha256 each) are computed only with direct unset
// (v1.35 layout) or session affinity, where they exist.
func newServicePort(s *model.Service, p model.Port, node string, direct bool) (*servicePort, error) {
	if err := checkNames(s, p); err != nil {
		return nil, err
	}
	if !s.ClusterIP.Is4() {
		return nil, fmt.Errorf("clusterIP %s: only IPv4 services are rendered (table ip kube-proxy)", s.ClusterIP)
	}
	proto := p.Protocol.Lower()
	if proto != "tcp" && proto != "udp" && proto != "sctp" {
		return nil, fmt.Errorf("port %q: unknown protocol %q", p.Name, p.Protocol)
	}
	if p.Port <= 0 || p.Port > 65535 {
		return nil, fmt.Errorf("port %q: number %d out of range", p.Name, p.Port)
	}
	svcChain := kpname.NFTServiceChain(s.Namespace, s.Name, proto, p.Name)
	sp := &servicePort{
		portName:  s.PortName(p),
		proto:     proto,
		clusterIP: s.ClusterIP.String(),
		port:      strconv.Itoa(p.Port),
		svcChain:  svcChain,
		extChain:  "external-" + strings.TrimPrefix(svcChain, "service-"),
		affinity:  s.Affinity.ClientIP,
	}
	if s.Type == model.NodePort {
		if p.NodePort <= 0 || p.NodePort > 65535 {
			return nil, fmt.Errorf("port %q: nodePort %d out of range", p.Name, p.NodePort)
		}
		sp.nodePort = strconv.Itoa(p.NodePort)
	}
	if sp.affinity {
		t := s.Affinity.Timeout
		if t <= 0 {
			t = model.DefaultAffinityTimeout
		}
		sp.timeout = strconv.Itoa(t) + "s"
	}
	named := !direct || sp.affinity
	eps := model.UsableEndpoints(s.PortEndpoints(p))
	sp.endpoints = make([]endpoint, 0, len(eps))
	for _, pe := range eps {
		ep, err := newEndpoint(s, proto, p.Name, pe.Addr, named, sp.affinity)
		if err != nil {
			return nil, err
		}
		ep.addr, ep.portNum, ep.local = pe.IP, pe.Port, pe.IsLocal(node)
		sp.endpoints = append(sp.endpoints, ep)
	}
	return sp, nil
}

// newEndpoint names the endpoint hostPort ("IP:port") of a service port:
// its chain when named is set, its affinity set when the service uses
// ClientIP affinity.
func newEndpoint(s *model.Service, proto, portName, hostPort string, named, affinity bool) (endpoint, error) {
	i := strings.LastIndexByte(hostPort, ':')
	if i < 0 || strings.ContainsRune(hostPort[:i], ':') || strings.HasPrefix(hostPort, "[") {
		return endpoint{}, fmt.Errorf("endpoint %s: only IPv4 endpoints are rendered", hostPort)
	}
	ip, port := hostPort[:i], hostPort[i+1:]
	ep := endpoint{ip: ip, port: port, hostPort: hostPort}
	if named {
		ep.chain = kpname.NFTEndpointChain(s.Namespace, s.Name, proto, portName, ip, port)
	}
	if affinity {
		ep.affinity = "affinity-" + strings.TrimPrefix(ep.chain, "endpoint-")
	}
	return ep, nil
}

// checkNames rejects names that cannot appear in an nftables chain name or
// a quoted comment: kube-proxy copies namespace, service and port names
// into both verbatim, which is safe only for Kubernetes-valid names. The
// renderer refuses rather than write a script another name could break.
func checkNames(s *model.Service, p model.Port) error {
	for _, n := range [...]struct{ what, v string }{{"namespace", s.Namespace}, {"name", s.Name}, {"port name", p.Name}} {
		for i := 0; i < len(n.v); i++ {
			if c := n.v[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
				return fmt.Errorf("%s %q: character %q cannot go into an nftables chain name", n.what, n.v, c)
			}
		}
	}
	if s.Namespace == "" || s.Name == "" {
		return fmt.Errorf("service %q/%q: namespace and name must not be empty", s.Namespace, s.Name)
	}
	return nil
}
