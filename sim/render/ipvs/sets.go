package ipvs

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// setID indexes kube-proxy's ipsets in its ipsetInfo order.
type setID int

// kube-proxy's ipsets (pkg/proxy/ipvs/proxier.go ipsetInfo), in its order.
const (
	setLoopBack setID = iota
	setClusterIP
	setExternalIP
	setExternalIPLocal
	setLoadBalancer
	setLoadBalancerFW
	setLoadBalancerLocal
	setLoadBalancerSourceIP
	setLoadBalancerSourceCIDR
	setNodePortTCP
	setNodePortLocalTCP
	setNodePortUDP
	setNodePortLocalUDP
	setNodePortSCTP
	setNodePortLocalSCTP
	setHealthCheckNodePort
	setIPVSIPs
	numSets
)

// ipset types as the ipset tool names them.
const (
	hashIP        = "hash:ip"
	hashIPPort    = "hash:ip,port"
	hashIPPortIP  = "hash:ip,port,ip"
	hashIPPortNet = "hash:ip,port,net"
	bitmapPort    = "bitmap:port"
)

// Defaults of kube-proxy's ipset util (setIPSetDefaults).
const (
	defaultHashSize  = 1024
	defaultMaxElem   = 65536
	defaultPortRange = "0-65535"
)

// setDef is one ipset: its name, type and the comment kube-proxy puts on
// the iptables rules that match it.
type setDef struct {
	name, typ, comment string
}

// setDefs are kube-proxy's ipsets (ipset.go constants), indexed by setID.
var setDefs = [numSets]setDef{
	setLoopBack:               {"KUBE-LOOP-BACK", hashIPPortIP, "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose"},
	setClusterIP:              {"KUBE-CLUSTER-IP", hashIPPort, "Kubernetes service cluster ip + port for masquerade purpose"},
	setExternalIP:             {"KUBE-EXTERNAL-IP", hashIPPort, "Kubernetes service external ip + port for masquerade and filter purpose"},
	setExternalIPLocal:        {"KUBE-EXTERNAL-IP-LOCAL", hashIPPort, "Kubernetes service external ip + port with externalTrafficPolicy=local"},
	setLoadBalancer:           {"KUBE-LOAD-BALANCER", hashIPPort, "Kubernetes service lb portal"},
	setLoadBalancerFW:         {"KUBE-LOAD-BALANCER-FW", hashIPPort, "Kubernetes service load balancer ip + port for load balancer with sourceRange"},
	setLoadBalancerLocal:      {"KUBE-LOAD-BALANCER-LOCAL", hashIPPort, "Kubernetes service load balancer ip + port with externalTrafficPolicy=local"},
	setLoadBalancerSourceIP:   {"KUBE-LOAD-BALANCER-SOURCE-IP", hashIPPortIP, "Kubernetes service load balancer ip + port + source IP for packet filter purpose"},
	setLoadBalancerSourceCIDR: {"KUBE-LOAD-BALANCER-SOURCE-CIDR", hashIPPortNet, "Kubernetes service load balancer ip + port + source cidr for packet filter purpose"},
	setNodePortTCP:            {"KUBE-NODE-PORT-TCP", bitmapPort, "Kubernetes nodeport TCP port for masquerade purpose"},
	setNodePortLocalTCP:       {"KUBE-NODE-PORT-LOCAL-TCP", bitmapPort, "Kubernetes nodeport TCP port with externalTrafficPolicy=local"},
	setNodePortUDP:            {"KUBE-NODE-PORT-UDP", bitmapPort, "Kubernetes nodeport UDP port for masquerade purpose"},
	setNodePortLocalUDP:       {"KUBE-NODE-PORT-LOCAL-UDP", bitmapPort, "Kubernetes nodeport UDP port with externalTrafficPolicy=local"},
	setNodePortSCTP:           {"KUBE-NODE-PORT-SCTP-HASH", hashIPPort, "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'"},
	setNodePortLocalSCTP:      {"KUBE-NODE-PORT-LOCAL-SCTP-HASH", hashIPPort, "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'"},
	setHealthCheckNodePort:    {"KUBE-HEALTH-CHECK-NODE-PORT", bitmapPort, "Kubernetes health check node port"},
	setIPVSIPs:                {"KUBE-IPVS-IPS", hashIP, "Addresses on the ipvs interface"},
}

// quotedComment is the comment as kube-proxy writes it into a rule.
func (d setDef) quotedComment() string { return `"` + d.comment + `"` }

// census counts the members each set will hold. It is taken in a first
// pass because create lines (with maxelem) precede the members, and the
// iptables payload has rules only for non-empty sets.
type census [numSets]int

// empty reports whether set id gets no member.
func (c *census) empty(id setID) bool { return c[id] == 0 }

// maxElem is the maxelem for set id: kube-proxy's 65536, raised to the next
// power of two when the set holds more (see the package doc).
func (c *census) maxElem(id setID) int {
	n := defaultMaxElem
	for n < c[id] {
		n *= 2
	}
	return n
}

// takeCensus walks every service once and counts set members. With
// emptinessOnly it may stop as soon as every set that can get members has
// some (the iptables payload needs no more), so the counts are then lower
// bounds.
func takeCensus(m *model.Model, opts Options, emptinessOnly bool) (census, error) {
	var c census
	if err := opts.validate(); err != nil {
		return c, err
	}
	for i := 0; i < m.Services.Len(); i++ {
		if emptinessOnly && c.settled(opts) {
			break
		}
		s := m.Services.At(i)
		if !programmed(s) {
			continue
		}
		if err := checkFamily(s); err != nil {
			return c, err
		}
		c[setIPVSIPs]++
		for _, p := range s.Ports {
			c[setClusterIP]++
			c[setLoopBack] += localCount(s, p, m.Cluster.NodeName)
			if id, ok := nodePortSet(s, p, opts); ok {
				c[id] += nodePortMembers(p, opts)
			}
		}
	}
	return c, nil
}

// settled reports whether every set services can fill has members.
func (c *census) settled(opts Options) bool {
	filled := !c.empty(setLoopBack) && !c.empty(setClusterIP) && !c.empty(setIPVSIPs)
	if len(opts.NodeIPs) > 0 {
		filled = filled && !c.empty(setNodePortTCP) && !c.empty(setNodePortUDP) && !c.empty(setNodePortSCTP)
	}
	return filled
}

// programmed reports whether kube-proxy programs anything for s: it needs a
// ClusterIP (headless services have none) and at least one port.
func programmed(s *model.Service) bool {
	return s.ClusterIP.IsValid() && !s.ClusterIP.IsUnspecified() && len(s.Ports) > 0
}

// checkFamily rejects services the IPv4 renderer cannot express.
func checkFamily(s *model.Service) error {
	if !s.ClusterIP.Is4() {
		return fmt.Errorf("service %s/%s: clusterIP %s: only IPv4 is supported", s.Namespace, s.Name, s.ClusterIP)
	}
	return nil
}

// localCount counts port p's endpoints on the rendered node, ready or not
// (the KUBE-LOOP-BACK members).
func localCount(s *model.Service, p model.Port, node string) int {
	if s.EndpointCount() == len(s.Endpoints) { // no duplicate address
		n := 0
		for i := range s.Endpoints {
			if s.Endpoints[i].IsLocal(node) {
				n++
			}
		}
		return n
	}
	return len(localEndpoints(s, p, node))
}

// localEndpoints returns the addresses of port p's endpoints on node,
// ready or not, one per address: in model order, or kube-proxy's sorted
// order when addresses repeat (its EndpointSliceCache decides which copy
// counts).
func localEndpoints(s *model.Service, p model.Port, node string) []netip.Addr {
	out := make([]netip.Addr, 0, len(s.Endpoints))
	if s.EndpointCount() == len(s.Endpoints) {
		for i := range s.Endpoints {
			if s.Endpoints[i].IsLocal(node) {
				out = append(out, s.Endpoints[i].IP)
			}
		}
		return out
	}
	for _, e := range s.PortEndpoints(p) {
		if e.IsLocal(node) {
			out = append(out, e.IP)
		}
	}
	return out
}

// nodePortSet returns the set that holds p's node port, if p has one that
// kube-proxy programs (it needs node IPs).
func nodePortSet(s *model.Service, p model.Port, opts Options) (setID, bool) {
	if s.Type != model.NodePort || p.NodePort == 0 || len(opts.NodeIPs) == 0 {
		return 0, false
	}
	switch p.Protocol {
	case model.TCP:
		return setNodePortTCP, true
	case model.UDP:
		return setNodePortUDP, true
	case model.SCTP:
		return setNodePortSCTP, true
	}
	return 0, false
}

// nodePortMembers is how many members one node port adds: a port number for
// the TCP/UDP bitmaps, nodeIP,sctp:port per node IP for SCTP.
func nodePortMembers(p model.Port, opts Options) int {
	if p.Protocol == model.SCTP {
		return len(opts.NodeIPs)
	}
	return 1
}
