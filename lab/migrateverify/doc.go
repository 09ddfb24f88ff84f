// Package migrateverify is the kernel half of `svclab migrate --verify`:
// for each side of a migration and each dataplane of the side's mode
// (iptables-legacy and iptables-nft for iptables mode, nftables, IPVS), it
// builds a scratch lab node, has the side's engine (kube-proxy's own
// proxier, or svclab's renderer) program the compared model into it, and
// sends each probe sim/migrate chose on its real path: from a client pod,
// from the node itself (127.0.0.1 included), from an external client with
// the probe's source address, from an endpoint pod (hairpin). What the
// kernel did with each connection (which endpoint answered and the source
// it saw, refused, unreachable, timed out, or reached its destination
// unchanged) goes back to sim/migrate.Judge, which compares it with the
// tracer's outcome for that side.
//
// The lab is one node namespace, one namespace per endpoint pod of the
// probed Services and one client pod (Calico-style: IP/32 on eth0, the
// gateway 169.254.1.1 with a permanent neighbour), an external client
// namespace on the node's uplink holding every external source address,
// and an upstream namespace behind the node's default route that owns the
// probed destinations kube-proxy may leave alone (ClusterIPs, externalIPs,
// load-balancer IPs), so that a packet the rules do not touch is answered
// by "the network" instead of vanishing. The node's own servers listen on
// every probed port, so a connection to a node address kube-proxy does
// not handle is answered by the node. Every pod, the node and upstream
// answer a connection with who they are and the source they saw.
//
// An IPVS side runs where IPVS is: on a kernel without it (this one), the
// same lab is built inside a user-mode-linux guest (lab/uml) that this
// binary boots with `svclab __migrate-verify JOB` (ServeGuest): the job
// (the compared model, the node, the side, the engine, the probes) and
// the kernel's answer pass through a directory the guest shares. IPv4 and
// IPv6 paths are probed (SCTP ones are reported as not sent, with the
// reason). Namespaces are named svl-mv-<pid>-<n>-…,
// held under one lease, and removed at the end. Linux only, privileged.
package migrateverify
