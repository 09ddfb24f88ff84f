// Package nftables renders the `nft -f` transaction that kube-proxy's
// nftables mode (pkg/proxy/nftables) runs for a model: the "kube-proxy"
// table in family ip (or ip6 for a model of Family IPv6: ip6 matches,
// ipv6_addr sets, `dnat to [IP]:port`), its base chains, the service-ips /
// service-nodeports / firewall-ips / no-endpoint-* verdict maps, the
// per-service chains (service-, local-, external-, firewall-, endpoint-)
// and the affinity sets of ClientIP services. Every Service feature is
// rendered as kube-proxy renders it: LoadBalancer ingress IPs and
// loadBalancerSourceRanges (including the node-IP case), externalIPs,
// external and internal traffic policy Local (short-circuit rules, drop
// when no local endpoint), kube-proxy's CategorizeEndpoints (topology
// hints, serving-terminating fallback per policy), headless and
// ExternalName services skipped; --masquerade-all and
// --nodeport-addresses come from Options.Flags. Renderers are given
// one family's projection (model.ForFamily); an address of the other
// family is an error. Lines are written in knftables' text form ("add chain ip
// kube-proxy NAME", "add element ip kube-proxy MAP { K : V }") and in the
// raw order kube-proxy's syncProxyRules adds them, except that services
// come in model order (kube-proxy walks a Go map).
//
// Layouts. Options.Version picks the kube-proxy release (default: the
// newest, render.LatestKubeProxy); the facts of its render.KubeProxyRelease
// row choose what is written:
//   - NFTablesDirectDNAT (v1.36+): services without session affinity have
//     no endpoint chains; the service chain DNATs itself (`dnat to
//     IP:PORT`, or `dnat ip addr . port to numgen random mod N map { … }`).
//     Hairpin traffic is masqueraded through the hairpin-connections set
//     (one element per local endpoint, written once per transaction),
//     ClusterIP traffic from outside the cluster CIDR by one rule in
//     `services`, and the masquerading chain has two rules.
//   - NFTablesLocalhostNodePorts (v1.37+): the localhost-nodeport-reject-*
//     map, chains and counters are added and deleted again, as kube-proxy
//     does with its feature gate off (Options.LocalhostNodePortsGate).
//   - otherwise (v1.34, v1.35): a chain per endpoint for every service,
//     jumps to mark-for-masquerade from service and endpoint chains, three
//     rules in masquerading.
//
// Both layouts add a multi-port service's ClusterIP to cluster-ips once,
// route to the endpoints kube-proxy would (model.UsableEndpoints: ready,
// else serving and terminating), and refuse names that could not go into
// a chain name (kube-proxy relies on Kubernetes validation for that).
// RenderSync writes the partial-sync transaction between any two cluster
// states (services added, removed, changed) in either layout, as
// kube-proxy's skipServiceUpdate and element storage do; RenderIncremental
// (one endpoint added) and RenderServiceChange (one service's endpoints)
// are its common special cases. The differential tests replay
// kube-proxy's own TestOverallNFTablesRules and TestSyncProxyRulesRepeated
// expectations (testdata/kube-proxy).
//
// Output is streamed: each service is built, written and dropped, so memory
// does not grow with the number of services (in the v1.36+ layout, except
// for the set of hairpin elements already written).
package nftables
