// Package ipvs renders what kube-proxy's IPVS mode programs into a node, as
// the text the standard tools load:
//
//   - RenderIPVSAdm: the virtual and real servers, as `ipvsadm -R` input
//     (the format `ipvsadm -S -n` prints). kube-proxy itself talks generic
//     netlink; this is the same table written down.
//   - RenderIPSet: the 17 ipsets and their members, as `ipset restore` input.
//   - RenderIPTables: the iptables-restore payload (nat then filter): the
//     service data lives in the ipsets, so the rules depend only on which
//     sets are empty, plus one drop per load-balancer IP:port whose source
//     ranges leave the node out.
//   - RenderJumps: the jumps from the built-in chains, which kube-proxy
//     ensures separately (iptables -C / -I) rather than in the restore.
//   - Addresses and BindAddresses: the addresses to bind to the kube-ipvs0
//     dummy interface (ClusterIPs, external and load-balancer IPs).
//   - Render and Split: all three payloads in one file, each after a header
//     line, and the way back.
//
// The renderer draws one family, model.Family, as that family's proxier
// does: it is given model.ForFamily(m, f). For IPv6 the sets are KUBE-6-*
// (cut to ipset's 31 characters, e.g. KUBE-6-LOAD-BALANCER-SOURCE-CID) of
// family inet6, the payload is ip6tables-restore input (::1/128), and
// virtual servers are written [addr]:port.
//
// Every Service feature kube-proxy's IPVS mode programs is rendered:
// NodePort and LoadBalancer node ports, externalIPs (KUBE-EXTERNAL-IP and
// its Local twin, with their MARK-MASQ and ACCEPT rules), load-balancer
// ingress IPs (KUBE-LOAD-BALANCER, -LOCAL, -FW, -SOURCE-CIDR, -SOURCE-IP,
// and a KUBE-IPVS-OUT-FILTER drop when the source ranges leave the node
// IP out), externalTrafficPolicy and internalTrafficPolicy Local (local
// endpoints when there are any, else the cluster ones, as syncEndpoint
// does), health-check node ports, topology hints (CategorizeEndpoints),
// the serving-terminating fallback, --masquerade-all and
// --nodeport-addresses (Options.Flags). Headless and ExternalName
// services are skipped.
//
// The facts follow kubernetes pkg/proxy/ipvs of v1.35.4 and v1.37.2
// (proxier.go syncProxyRules, writeIptablesRules and syncEndpoint; ipset.go;
// ipset/ipset.go; util/ipvs_linux.go; pkg/proxy/topology.go), checked by
// the differential suite in kubeproxy/conformance. Where svclab departs
// from kube-proxy it is on purpose and listed here:
//
//   - Order. kube-proxy walks Go maps, so its order of virtual servers, sets
//     and set members is random; it adds members one `ipset add` at a time.
//     svclab streams in model order (real servers in kube-proxy's string
//     order) with every create before the first add.
//   - maxelem. kube-proxy always creates hash sets with maxelem 65536, so on
//     a node with more members the kernel answers "Hash is full" and
//     kube-proxy logs the error and runs with the set incomplete. svclab
//     raises maxelem to the next power of two when a set would hold more
//     than 65536 members, so large sweeps load; Set.MaxElem says what was
//     used. Everything else in the create lines is kube-proxy's (family
//     inet or inet6, hashsize 1024, range 0-65535 for bitmap:port, -exist;
//     no comment extension: kube-proxy's comments live in iptables only).
//   - Endpoints. KUBE-LOOP-BACK holds every endpoint on this node, ready
//     or not, as kube-proxy's endpointsMap loop does. kube-proxy also keeps
//     terminating real servers at weight 0 until their connections end
//     (graceful termination); svclab renders one sync from scratch, so it
//     writes only the current ones.
//   - Version. Options.Version: v1.37 always writes MASQUERADE
//     --random-fully; IPVS mode is otherwise the same in v1.35 and v1.37.
//   - Node addresses. kube-proxy serves NodePorts on every local address of
//     the node outside kube-ipvs0 (or those --nodeport-addresses selects);
//     svclab takes them from the model's Cluster.NodeIP and Options.NodeIPs
//     and, like kube-proxy with no node address, programs no NodePort at
//     all when there is none. The node IP that source ranges are checked
//     against is Cluster.NodeIP (else the first of Options.NodeIPs).
//   - Conflicts. Two services claiming the same external or load-balancer
//     IP and port make kube-proxy's result depend on map order; svclab
//     writes both. An external or load-balancer IP is bound once however
//     many services share it.
//   - Cost. Load-balancer source ranges add per-service rules to the
//     iptables payload, so RenderIPTables walks every service (it used to
//     stop once every set was known to be non-empty).
package ipvs
