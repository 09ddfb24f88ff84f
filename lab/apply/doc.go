// Package apply loads rendered rule payloads into a lab's node namespace
// with the kernel tools kube-proxy itself uses, times the load, reads the
// kernel's rule counters back, and removes the rules again.
//
//   - iptables: one `iptables-{legacy,nft}-restore --noflush --counters` call
//     with the whole payload (kube-proxy's RestoreAll), then the jump rules
//     from the built-in chains; per-rule packet counters are read with
//     go-iptables;
//   - nftables: one `nft -f -` transaction with the whole script.
//
// Every command runs inside the node namespace (see lab/netns), never in the
// host's.
package apply
