package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// Cause is the kube-proxy behaviour behind a class of differences, in
// kube-proxy's words: the flag, the rule, the version, the upstream
// reference (docs/migration.md has each with its source), and what to do.
type Cause struct {
	ID string `json:"id"`
	// What says what each side does and which rule or flag does it.
	What      string `json:"what"`
	Reference string `json:"reference,omitempty"`
	Action    string `json:"action"`
}

// evidence is one subgroup's example as both sides traced it.
type evidence struct {
	path               Path
	from, to           Side
	a, b               Outcome
	fromPath, toPath   []string
	fromRules, toRules string // the paths joined, for matching
}

// known is one entry of the catalog: a cause and the evidence it needs
// in the traced rules.
type known struct {
	id      string
	matches func(e evidence) bool
	explain func(e evidence) Cause
}

// causeOf finds the catalog entry whose evidence the traces show; nil
// when none does (the class is reported with its rules, cause unknown).
func causeOf(e evidence) *Cause {
	for _, k := range catalog {
		if k.matches(e) {
			c := k.explain(e)
			c.ID = k.id
			return &c
		}
	}
	return nil
}

// end is one side of the evidence: its configuration, traced rules and
// outcome.
type end struct {
	side    Side
	rules   string
	outcome Outcome
}

func (e evidence) ends() (from, to end) {
	return end{e.from, e.fromRules, e.a}, end{e.to, e.toRules, e.b}
}

// eitherMode reports whether one side runs mode m and the other does not.
func (e evidence) eitherMode(m dataplane.Mode) bool { return (e.from.Mode == m) != (e.to.Mode == m) }

const (
	refNFTablesKEP   = "KEP-3866 (nftables kube-proxy), \"Differences from iptables\"; kubernetes.io/docs/reference/networking/virtual-ips/#migrating-from-iptables-mode-to-nftables"
	refLocalhost     = "kube-proxy --iptables-localhost-nodeports; KEP-3866; v1.37 feature gate KubeProxyNFTablesLocalhostNodePorts (pkg/proxy/nftables/proxier.go)"
	refNodePortAddrs = "kube-proxy --nodeport-addresses; cmd/kube-proxy/app/server_linux.go platformApplyDefaults (nftables: unset means primary)"
	refIPVSLocal     = "kubernetes/kubernetes#97081 (IPVS applies externalTrafficPolicy per virtual server)"
	refIPVSITP       = "pkg/proxy/ipvs/proxier.go (internalTrafficPolicy via the virtual server's real servers); net/netfilter/ipvs/ip_vs_core.c ip_vs_leave"
	refIPVSFilter    = "pkg/proxy/ipvs/proxier.go: KUBE-IPVS-FILTER (\"kubernetes ipvs access filter\"), kube-ipvs0"
)

var catalog = []known{
	{
		id: "external-address-without-endpoints",
		matches: func(e evidence) bool {
			external := e.path.Target == ToLoadBalancerIP || e.path.Target == ToExternalIP
			rules := e.fromRules + e.toRules
			return external && e.path.Facts.Endpoints == 0 && e.eitherMode(dataplane.ModeNFTables) &&
				(strings.Contains(rules, "no-endpoint-services") || strings.Contains(rules, "firewall-check") || strings.Contains(rules, "has no endpoints"))
		},
		explain: func(e evidence) Cause {
			from, to := e.ends()
			return Cause{
				What: fmt.Sprintf("a LoadBalancer IP or externalIP of a Service without endpoints, from %s: %s; %s. "+
					"iptables mode writes its \"has no endpoints\" REJECT for external addresses in KUBE-EXTERNAL-SERVICES, which INPUT and FORWARD jump to but OUTPUT does not, and no source-range firewall; "+
					"nftables mode checks the source ranges first (firewall-check, before DNAT, in prerouting and output) and then no-endpoint-services (input, forward and output)",
					e.path.Client, outcomeBy(from), outcomeBy(to)),
				Reference: refNFTablesKEP + "; pkg/proxy/iptables/proxier.go (KUBE-EXTERNAL-SERVICES), pkg/proxy/nftables/proxier.go (firewall-check, no-endpoint-services)",
				Action:    "nothing for working clients: connections to an endpoint-less Service fail either way, only how (refused, dropped, or left to the node's routing) changes",
			}
		},
	},
	{
		id: "unused-clusterip-port",
		matches: func(e evidence) bool {
			return e.path.Target == ToWrongPort && (strings.Contains(e.fromRules+e.toRules, "cluster-ips-check") || strings.Contains(e.fromRules+e.toRules, "KUBE-IPVS-FILTER"))
		},
		explain: func(e evidence) Cause {
			from, to := e.ends()
			return Cause{
				What: fmt.Sprintf("a new connection to a ClusterIP on a port no Service uses: %s; %s",
					unusedPortRule(from), unusedPortRule(to)),
				Reference: refNFTablesKEP + "; " + refIPVSFilter,
				Action:    "nothing, unless a client relies on such connections: it now gets ICMP port unreachable (connection refused) at once, or, leaving nftables/IPVS, a timeout",
			}
		},
	},
	{
		id: "localhost-nodeports",
		matches: func(e evidence) bool {
			return e.path.Target == ToNodePortLocal
		},
		explain: func(e evidence) Cause {
			from, to := e.ends()
			return Cause{
				What:      fmt.Sprintf("NodePorts on 127.0.0.1: %s; %s", localhostRule(from), localhostRule(to)),
				Reference: refLocalhost,
				Action:    "clients on the node that connect to 127.0.0.1:NODEPORT must use the node's IP instead (on nftables v1.37+ the alpha gate KubeProxyNFTablesLocalhostNodePorts with 127.0.0.1 in --nodeport-addresses serves TCP through a userspace proxy)",
			}
		},
	},
	{
		id: "nodeport-addresses",
		matches: func(e evidence) bool {
			return e.path.Target == ToNodePortOther && nodePortAddrs(e.from) != nodePortAddrs(e.to)
		},
		explain: func(e evidence) Cause {
			return Cause{
				What: fmt.Sprintf("NodePorts on the node's other addresses: %s uses --nodeport-addresses=%s, %s uses %s; only addresses inside it answer",
					e.from.Mode, nodePortAddrs(e.from), e.to.Mode, nodePortAddrs(e.to)),
				Reference: refNodePortAddrs,
				Action:    "set --nodeport-addresses on the new side to the CIDRs clients connect to (kube-proxy's config nodePortAddresses), or move the clients to the node's primary IP",
			}
		},
	},
	{
		id: "ipvs-external-traffic-policy",
		matches: func(e evidence) bool {
			return e.eitherMode(dataplane.ModeIPVS) && e.path.Facts.ExternalLocal && e.path.Target != ToClusterIP && e.path.Target != ToWrongPort
		},
		explain: func(e evidence) Cause {
			return Cause{
				What: "externalTrafficPolicy: Local: IPVS mode applies it per virtual server, to every client (pods and the node too get only this node's endpoints) and, with none here, " +
					"sends the connection to the cluster's endpoints; iptables and nftables modes apply it to external clients only (their external chain sends pod and node traffic to the cluster chain) " +
					"and drop external connections when the node has no local endpoint",
				Reference: refIPVSLocal,
				Action: "leaving IPVS: nodes without a local endpoint now drop external traffic (the load balancer's health check on healthCheckNodePort must steer it away) and in-cluster clients of a NodePort/LB IP " +
					"reach every endpoint; entering IPVS: the reverse",
			}
		},
	},
	{
		id: "ipvs-internal-traffic-policy",
		matches: func(e evidence) bool {
			return e.eitherMode(dataplane.ModeIPVS) && e.path.Facts.InternalLocal
		},
		explain: func(e evidence) Cause {
			return Cause{
				What: fmt.Sprintf("internalTrafficPolicy: Local, and this node has %d of the Service's %d ready endpoints: %s %s, %s %s "+
					"(IPVS: a virtual server without a real server answers ICMP port unreachable, ip_vs_leave; iptables/nftables: kube-proxy's \"has no local endpoints\" rule drops)",
					e.path.Facts.LocalEndpoints, e.path.Facts.Endpoints, e.from.Mode, e.a, e.to.Mode, e.b),
				Reference: refIPVSITP,
				Action:    "nothing for correct clients; a client of a node-local Service on a node without its endpoint sees a refusal instead of a timeout, or the reverse",
			}
		},
	},
}

// outcomeBy says what a side does, with the last decisive rule it traced.
func outcomeBy(x end) string {
	rules := tail(strings.Split(x.rules, "\n"), 1)
	if len(rules) == 0 || x.rules == "" {
		return fmt.Sprintf("%s: %s", x.side.Mode, x.outcome.Handling)
	}
	return fmt.Sprintf("%s: %s (%s)", x.side.Mode, x.outcome.Handling, clip(rules[0]))
}

// clip shortens a traced rule for a sentence.
func clip(rule string) string {
	const max = 160
	if len(rule) > max {
		return rule[:max] + "…"
	}
	return rule
}

// unusedPortRule says what side s's traced rules do with a connection to
// an unused ClusterIP port.
func unusedPortRule(x end) string {
	s, rules := x.side, x.rules
	switch {
	case strings.Contains(rules, "cluster-ips-check"):
		return fmt.Sprintf("%s rejects it (chain cluster-ips-check: `ip daddr @cluster-ips reject`)", s.Mode)
	case strings.Contains(rules, "KUBE-IPVS-FILTER") && strings.Contains(rules, "REJECT"):
		return fmt.Sprintf("%s rejects it (the ClusterIP is bound to the dummy interface kube-ipvs0, so the packet is the node's own; KUBE-IPVS-FILTER: `-m set --match-set KUBE-IPVS-IPS dst -j REJECT`)", s.Mode)
	}
	return fmt.Sprintf("%s has no rule for it (the packet is routed on, as any other)", s.Mode)
}

// localhostRule says what side s's traced rules do with a NodePort
// connection to 127.0.0.1.
func localhostRule(x end) string {
	s, rules := x.side, x.rules
	served := x.outcome.Handling == Served
	switch {
	case served && s.Mode == dataplane.ModeIPTables:
		return fmt.Sprintf("%s serves them (--iptables-localhost-nodeports=true, the default: KUBE-SERVICES `-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS` matches 127.0.0.1, route_localnet=1)", s.Mode)
	case served:
		return fmt.Sprintf("%s serves them", s.Mode)
	case strings.Contains(rules, "localhost-nodeport-reject"):
		return fmt.Sprintf("%s rejects them (v1.37 localhost-nodeport-reject-* with KubeProxyNFTablesLocalhostNodePorts)", s.Mode)
	case s.Mode == dataplane.ModeNFTables:
		return fmt.Sprintf("%s does not serve them (its NodePort rule is `fib daddr type local ip daddr != 127.0.0.0/8 ... vmap @service-nodeports`)", s.Mode)
	case s.Mode == dataplane.ModeIPTables:
		return fmt.Sprintf("%s does not serve them (--iptables-localhost-nodeports=false)", s.Mode)
	}
	return fmt.Sprintf("%s does not serve them (no virtual server on a loopback address)", s.Mode)
}

// nodePortAddrs is the side's effective --nodeport-addresses.
func nodePortAddrs(s Side) string {
	var v []string
	for _, c := range s.Flags.NodePortAddresses {
		v = append(v, c.String())
	}
	if s.Flags.NodePortPrimary {
		v = append(v, "primary")
	}
	if len(v) == 0 {
		return "(unset: every local address)"
	}
	slices.Sort(v)
	return strings.Join(v, ",")
}
