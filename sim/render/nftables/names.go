package nftables

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
)

// commentLengthMax is knftables.CommentLengthMax: kube-proxy v1.36+
// truncates element comments to it.
const commentLengthMax = 128

// servicePort is one port of a service with every name, string and
// endpoint category its rules need, computed once (each name costs a
// sha256). Its fields follow kube-proxy's servicePortInfo and the locals
// of syncProxyRules.
type servicePort struct {
	portName  string // "ns/svc:port", kube-proxy's ServicePortName
	comment   string // portName as element comments carry it
	proto     string // "tcp"
	clusterIP string
	port      string
	nodePort  string // "" without a NodePort
	base      string // HASH-ns/svc/proto/port
	svcChain  string // service-HASH-ns/svc/proto/port (Cluster policy)
	affinity  bool
	timeout   string // affinity timeout, e.g. "10800s"
	// externalIPs and lbIPs are the service's external and load-balancer
	// IPs of the rendered family, deduplicated.
	externalIPs, lbIPs []string
	// sourceRanges is the firewall rule's set ("a , b"), "" when the port
	// has no firewall.
	sourceRanges string
	// externalLocal and internalLocal are the effective traffic policies.
	externalLocal, internalLocal bool
	// endpoints are kube-proxy's allLocallyReachableEndpoints; cluster and
	// local index its clusterEndpoints and localEndpoints in endpoints.
	endpoints      []endpoint
	cluster, local []int
	// hasAny is CategorizeEndpoints' hasAnyEndpoints (hasEndpoints).
	hasAny bool
}

// endpoint is one endpoint kube-proxy routes a service port to.
type endpoint struct {
	addr     netip.Addr
	ip       string // "10.0.3.2"
	port     string // "80"
	hostPort string // "10.0.3.2:80", "[fd00::1]:80"
	portNum  int
	local    bool   // on the rendered node
	chain    string // endpoint-HASH-ns/svc/proto/port__IP/port
	affinity string // affinity-HASH-ns/svc/proto/port__IP/port
}

// hasEndpoints is kube-proxy's hasEndpoints.
func (sp *servicePort) hasEndpoints() bool { return sp.hasAny }

// externallyAccessible is ServicePort.ExternallyAccessible.
func (sp *servicePort) externallyAccessible() bool {
	return sp.nodePort != "" || len(sp.lbIPs) > 0 || len(sp.externalIPs) > 0
}

// usesClusterChain and usesLocalChain are usesClusterPolicyChain and
// usesLocalPolicyChain: the port has the service- or local- chain.
func (sp *servicePort) usesClusterChain() bool {
	return len(sp.cluster) > 0 && (!sp.internalLocal || sp.externallyAccessible())
}

func (sp *servicePort) usesLocalChain() bool {
	return len(sp.local) > 0 && (sp.internalLocal || sp.externalLocal && sp.externallyAccessible())
}

// usesExtChain is usesExternalTrafficChain.
func (sp *servicePort) usesExtChain() bool { return sp.hasAny && sp.externallyAccessible() }

// usesFWChain reports whether the port has a firewall chain.
func (sp *servicePort) usesFWChain() bool { return len(sp.lbIPs) > 0 && sp.sourceRanges != "" }

// hasInternal and hasExternal are hasInternalEndpoints and
// hasExternalEndpoints.
func (sp *servicePort) hasInternal() bool {
	return sp.hasAny && (!sp.internalLocal || len(sp.local) > 0)
}
func (sp *servicePort) hasExternal() bool {
	return sp.hasAny && (!sp.externalLocal || len(sp.local) > 0)
}

// localChain, extChain and fwChain are the port's local- (Local policy),
// external- and firewall- chains, named when asked for (most ports have
// none of them).
func (sp *servicePort) localChain() string { return "local-" + sp.base }
func (sp *servicePort) extChain() string   { return "external-" + sp.base }
func (sp *servicePort) fwChain() string    { return "firewall-" + sp.base }

// internalChain and externalPolicyChain are the chains internal and
// external traffic is finally sent to.
func (sp *servicePort) internalChain() string {
	if sp.internalLocal {
		return sp.localChain()
	}
	return sp.svcChain
}

func (sp *servicePort) externalPolicyChain() string {
	if sp.externalLocal {
		return sp.localChain()
	}
	return sp.svcChain
}

// filterVerdicts are internalTrafficFilterVerdict and
// externalTrafficFilterVerdict: the no-endpoint-* element values.
func (sp *servicePort) filterVerdict(has bool) string {
	switch {
	case !sp.hasAny:
		return "goto " + chainReject
	case !has:
		return "drop"
	}
	return ""
}

// portContext is what naming a port needs besides the service: the node,
// its zone and IP, the family and the layout.
type portContext struct {
	node, zone string
	nodeIP     netip.Addr
	family     model.Family
	releaseFacts
}

// newServicePort computes the names and endpoint categories of port p of
// service s. Endpoint chain and affinity set names (a sha256 each) are
// computed only in the v1.35 layout or with session affinity, where they
// exist.
func newServicePort(s *model.Service, p model.Port, pc portContext) (*servicePort, error) {
	if err := checkNames(s, p); err != nil {
		return nil, err
	}
	if !pc.family.Has(s.ClusterIP) {
		return nil, fmt.Errorf("clusterIP %s is not %s: render each family's projection (model.ForFamily)", s.ClusterIP, pc.family)
	}
	proto := p.Protocol.Lower()
	if proto != "tcp" && proto != "udp" && proto != "sctp" {
		return nil, fmt.Errorf("port %q: unknown protocol %q", p.Name, p.Protocol)
	}
	if p.Port <= 0 || p.Port > 65535 {
		return nil, fmt.Errorf("port %q: number %d out of range", p.Name, p.Port)
	}
	base := kpname.NFTServiceName(s.Namespace, s.Name, proto, p.Name)
	sp := &servicePort{
		portName:  s.PortName(p),
		proto:     proto,
		clusterIP: s.ClusterIP.String(),
		port:      strconv.Itoa(p.Port),
		base:      base,
		svcChain:  "service-" + base,
		affinity:  s.Affinity.ClientIP || s.Affinity.Timeout > 0,
	}
	sp.comment = sp.portName
	if pc.truncateComments && len(sp.comment) > commentLengthMax {
		sp.comment = sp.comment[:commentLengthMax]
	}
	if err := sp.setExternal(s, p, pc); err != nil {
		return nil, err
	}
	if sp.affinity {
		t := s.Affinity.Timeout
		if t <= 0 {
			t = model.DefaultAffinityTimeout
		}
		sp.timeout = strconv.Itoa(t) + "s"
	}
	if err := sp.setEndpoints(s, p, pc); err != nil {
		return nil, err
	}
	return sp, nil
}

// setExternal fills the NodePort, external and load-balancer IPs, source
// ranges and traffic policies, as kube-proxy's newBaseServiceInfo reads
// them.
func (sp *servicePort) setExternal(s *model.Service, p model.Port, pc portContext) error {
	externalType := s.Type == model.NodePort || s.Type == model.LoadBalancer
	if externalType && p.NodePort != 0 {
		if p.NodePort < 0 || p.NodePort > 65535 {
			return fmt.Errorf("port %q: nodePort %d out of range", p.Name, p.NodePort)
		}
		sp.nodePort = strconv.Itoa(p.NodePort)
	}
	var err error
	if sp.externalIPs, err = addrStrings(s.ExternalIPs, pc.family, "externalIP"); err != nil {
		return err
	}
	if sp.lbIPs, err = addrStrings(s.LoadBalancerIPs, pc.family, "loadBalancer ingress IP"); err != nil {
		return err
	}
	accessible := externalType || (s.Type == model.ClusterIP || s.Type == "") && len(s.ExternalIPs) > 0
	sp.externalLocal = s.ExternalPolicyLocal && accessible
	sp.internalLocal = s.InternalPolicyLocal
	return sp.setSourceRanges(s.LoadBalancerSourceRanges, pc)
}

// setSourceRanges writes the firewall's allowed sources: the ranges (a
// zero-length one allows everything, so there is no firewall), and the
// load-balancer IPs too when a range holds the node IP.
func (sp *servicePort) setSourceRanges(ranges []netip.Prefix, pc portContext) error {
	var b strings.Builder
	fromNode := false
	for _, r := range ranges {
		if !pc.family.Has(r.Addr()) {
			return fmt.Errorf("loadBalancerSourceRange %s is not %s: render each family's projection (model.ForFamily)", r, pc.family)
		}
		if r.Bits() == 0 {
			return nil
		}
		if b.Len() > 0 {
			b.WriteString(" , ")
		}
		b.WriteString(r.Masked().String())
		fromNode = fromNode || pc.nodeIP.IsValid() && r.Contains(pc.nodeIP)
	}
	if fromNode {
		for _, ip := range sp.lbIPs {
			b.WriteString(" , " + ip)
		}
	}
	sp.sourceRanges = b.String()
	return nil
}

// addrStrings formats addrs, which must all be of family f, dropping
// repeats (kube-proxy adds each element once).
func addrStrings(addrs []netip.Addr, f model.Family, what string) ([]string, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(addrs))
	for i, a := range addrs {
		if !f.Has(a) {
			return nil, fmt.Errorf("%s %s is not %s: render each family's projection (model.ForFamily)", what, a, f)
		}
		if !containsAddr(addrs[:i], a) {
			out = append(out, a.String())
		}
	}
	return out, nil
}

func containsAddr(addrs []netip.Addr, a netip.Addr) bool {
	for _, b := range addrs {
		if a == b {
			return true
		}
	}
	return false
}

// setEndpoints categorizes the port's endpoints as kube-proxy does and
// names the reachable ones.
func (sp *servicePort) setEndpoints(s *model.Service, p model.Port, pc portContext) error {
	eps := s.PortEndpoints(p)
	for i := range eps {
		if !pc.family.Has(eps[i].IP) {
			return fmt.Errorf("endpoint %s is not %s: render each family's projection (model.ForFamily)", eps[i].Addr, pc.family)
		}
	}
	usesCluster, usesLocal := model.UsesEndpoints(sp.internalLocal, sp.externalLocal, sp.externallyAccessible())
	cat := model.CategorizeEndpoints(eps, usesCluster, usesLocal, pc.node, pc.zone)
	sp.hasAny, sp.cluster, sp.local = cat.HasAny, positions(cat.Cluster, cat.Reachable), positions(cat.Local, cat.Reachable)
	named := !pc.direct || sp.affinity
	sp.endpoints = make([]endpoint, len(cat.Reachable))
	for i, j := range cat.Reachable {
		pe := &eps[j]
		ep := &sp.endpoints[i]
		ep.addr, ep.portNum, ep.local, ep.hostPort = pe.IP, pe.Port, pe.IsLocal(pc.node), pe.Addr
		ep.ip, ep.port = splitHostPort(pe.Addr)
		if named {
			ep.chain = kpname.NFTEndpointChain(s.Namespace, s.Name, sp.proto, p.Name, ep.ip, ep.port)
		}
		if sp.affinity {
			ep.affinity = "affinity-" + strings.TrimPrefix(ep.chain, "endpoint-")
		}
	}
	return nil
}

// splitHostPort splits kube-proxy's "IP:port" / "[IP]:port" endpoint
// string without allocating.
func splitHostPort(hostPort string) (ip, port string) {
	i := strings.LastIndexByte(hostPort, ':')
	ip, port = hostPort[:i], hostPort[i+1:]
	if strings.HasPrefix(ip, "[") {
		ip = ip[1 : len(ip)-1]
	}
	return ip, port
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
