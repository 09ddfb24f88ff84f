// Package topo builds and tears down the lab topology of one svclab run: a
// node network namespace where kube-proxy's rules live, one namespace per
// backend pod, a client pod, an optional sink pod that owns whole ranges
// of filler endpoints, an optional external client on the node's uplink
// (NodePorts, externalIPs and load-balancer IPs reached from outside the
// cluster, from several source addresses) and an optional second node
// behind a node-to-node link, whose pods are remote endpoints.
//
// Every object is named with the run prefix (see NewPrefix), so `ip netns
// list` shows what a run owns and Cleanup can remove what a killed run left.
// Nothing is ever created in the root network namespace: veth pairs are made
// inside the node namespace with their peer placed directly in the pod's
// namespace, so the lab has no link to the host and its traffic cannot leave.
//
// Addressing follows Calico: a pod owns IP/32 on eth0 and reaches everything
// through the link-local gateway 169.254.1.1; the node routes each pod IP/32
// to the pod's veth. Neighbour entries on both ends are permanent, so no ARP
// exchange ever sits in a measured first packet. Every namespace is
// dual-stack: IPv6 addresses are added without duplicate address detection
// and pods route IPv6 through the link-local gateway fe80::1. The node's own
// addresses (NodeIP, NodeIPv6) sit on its loopback, and the gateway there has
// link scope, so a masqueraded packet leaves with the node's address.
package topo
