// Package ipvs renders what kube-proxy's IPVS mode programs into a node, as
// the text the standard tools load:
//
//   - RenderIPVSAdm: the virtual and real servers, as `ipvsadm -R` input
//     (the format `ipvsadm -S -n` prints). kube-proxy itself talks generic
//     netlink; this is the same table written down.
//   - RenderIPSet: the 17 ipsets and their members, as `ipset restore` input.
//   - RenderIPTables: the iptables-restore payload (nat then filter), a
//     constant number of rules whatever the number of services, since the
//     service data lives in the ipsets.
//   - RenderJumps: the jumps from the built-in chains, which kube-proxy
//     ensures separately (iptables -C / -I) rather than in the restore.
//   - Addresses: the ClusterIPs to bind to the kube-ipvs0 dummy interface.
//   - Render and Split: all three payloads in one file, each after a header
//     line, and the way back.
//
// The facts follow kubernetes pkg/proxy/ipvs (proxier.go with
// KUBE-IPVS-OUT-FILTER and OnServiceCIDRsChanged, i.e. 1.31/1.32-era;
// ipset.go; ipset/ipset.go; util/ipvs_linux.go). Where svclab departs from
// kube-proxy it is on purpose and listed here:
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
//     inet hashsize 1024, range 0-65535 for bitmap:port, -exist; no
//     comment extension: kube-proxy's comments live in iptables only).
//   - Endpoints. Real servers are the endpoints kube-proxy routes to with
//     Cluster traffic policy (model.UsableEndpoints: ready, else serving and
//     terminating); KUBE-LOOP-BACK holds every endpoint on this node, ready
//     or not, as kube-proxy's endpointsMap loop does. kube-proxy also keeps
//     terminating real servers at weight 0 until their connections end
//     (graceful termination); svclab renders one sync from scratch, so it
//     writes only the current ones.
//   - Version. Options.Version: v1.37 always writes MASQUERADE
//     --random-fully; IPVS mode is otherwise the same in v1.35 and v1.37.
//   - IPv4 only: an IPv6 ClusterIP is an error (kube-proxy runs a second
//     proxier with KUBE-6- sets and ip6tables for that family).
//   - Node IPs. kube-proxy serves NodePorts on every local address of the
//     node outside kube-ipvs0; svclab takes them from Options.NodeIPs and,
//     like kube-proxy with no node address, programs no NodePort at all
//     when the list is empty.
//   - ExternalIPs, LoadBalancer ingress, health-check node ports and
//     traffic policies are not in the model, so their sets stay empty and
//     the rules kube-proxy writes only for non-empty sets are absent.
package ipvs
