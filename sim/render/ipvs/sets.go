package ipvs

import (
	"strings"

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

// setNames are the set names per family (familyIndex): kube-proxy's IPv6
// proxier renames KUBE-* to KUBE-6-* and cuts names to ipset's 31
// characters (NewIPSet), e.g. KUBE-6-LOAD-BALANCER-SOURCE-CID.
var setNames = func() (out [2][numSets]string) {
	for id, d := range setDefs {
		out[0][id] = d.name
		v6 := "KUBE-6-" + strings.TrimPrefix(d.name, "KUBE-")
		if len(v6) > maxSetName {
			v6 = v6[:maxSetName]
		}
		out[1][id] = v6
	}
	return out
}()

// maxSetName is ipset's longest set name.
const maxSetName = 31

func familyIndex(f model.Family) int {
	if f == model.IPv6 {
		return 1
	}
	return 0
}

// hashFamily is the family option of the node's hash sets.
func (n *node) hashFamily() string {
	if n.family == model.IPv6 {
		return "inet6"
	}
	return "inet"
}
