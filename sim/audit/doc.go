// Package audit compares the rules a node holds with the rules kube-proxy
// of the node's mode and version should have written for the cluster's
// objects, and says per Service what the difference does to traffic.
//
// The expected rules come from a Renderer: svclab's native renderers
// (Native), or kube-proxy's own proxier in render mode, whose payload the
// caller obtains (lab/kubeproxy.RenderFirst) and hands in as a function
// (KubeProxy), so this package stays pure. Both sides are reduced to facts
// (a chain and each of its rules, a set or map and each element, a virtual
// server and each real server, an ipset and each member), each keyed by the
// object it lives in and owned by the Service it serves, then compared:
//
//   - missing: kube-proxy would have written it and the node lacks it;
//   - stale: the node holds it and kube-proxy would not have written it
//     (a deleted Service or endpoint, another version's layout);
//   - differs: the same object with another value (a map element's
//     verdict, a chain's hook, a real server's weight), or a chain whose
//     rules are the same in another order where order matters.
//
// Rules are compared in their parsed, normal form (iptables.Normalize,
// nftables expressions), without counters or comments, after kube-proxy's
// own freedom of order (iptables.Sort); only kube-proxy's objects are
// compared: KUBE-* chains and the jumps into them in iptables, the
// kube-proxy tables in nftables, KUBE-* ipsets and every virtual server in
// IPVS. Chains of other owners (kubelet's KUBE-FIREWALL, a CNI's) are left
// alone unless kube-proxy would write them.
//
// The traffic effect is read by tracing, never restated: sim/route routes
// every path of every Service (a pod and the node to its ClusterIP, an
// external client to its NodePort, load-balancer and external IPs) over the
// expected rules and over the node's (route.FromRules), and each difference
// in the answers is named: an endpoint gone, traffic dropped, a stale
// endpoint still receiving, a share or the source seen changed.
package audit
