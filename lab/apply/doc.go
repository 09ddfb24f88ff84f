// Package apply loads rendered rule payloads into a lab's node namespace
// with the kernel tools kube-proxy itself uses, times the load, reads the
// kernel's rule counters back, and removes the rules again.
//
//   - iptables: one `iptables-{legacy,nft}-restore --noflush --counters` call
//     with the whole payload (kube-proxy's RestoreAll), then the jump rules
//     from the built-in chains; per-rule packet counters are read from
//     `iptables-save -c`, parsed with sim/iptables;
//   - nftables: one `nft -f -` transaction with the whole script; the
//     fairness witness is svclab's own counting table beside it
//     (witness_linux.go), since kube-proxy's rules keep no counters;
//   - ipvs: the kube-ipvs0 dummy with every ClusterIP, `ipset restore`, the
//     constant iptables-legacy rules, and virtual and real servers over
//     generic netlink (github.com/cloudflare/ipvs), parsed from the same
//     ipvsadm text the renderer prints. It needs a kernel with IPVS; on
//     this host that is the user-mode-linux guest (lab/uml).
//
// Every command runs inside the node namespace (see lab/netns), never in the
// host's.
//
// Dataplane (seam.go) is the one seam between the runner and every backend,
// and registry_linux.go is where backends are found: each dataplane of
// sim/dataplane has a constructor, registered by the package that owns it
// (this one for the kube-proxy modes' native loaders, lab/ebpf for the eBPF
// dataplanes), that builds it from a small Node; an external engine
// (lab/kubeproxy: kube-proxy's own proxier) registers for every dataplane.
// The runner only calls Open(name, node, settings).
package apply
