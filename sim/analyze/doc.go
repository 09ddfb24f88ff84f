// Package analyze answers questions about a rule dump, whichever mode wrote
// it: `iptables-save` output or kube-proxy's iptables-restore payload, and
// `nft list ruleset` output or kube-proxy's nft script.
//
//   - Load detects the format and parses it (sim/iptables, sim/nftables);
//   - Trace walks one packet (sim/trace, sim/nfttrace) and returns one
//     result shape for both: the path, the verdict, masquerading, every
//     reachable endpoint with its probability, rules evaluated and map
//     lookups;
//   - Analyze traces a first packet to every service and reports, per
//     service, its position, the rules its first packet costs and whether its
//     split is uniform, and in total the worst, mean and p99 cost and the
//     distribution of endpoints per service.
package analyze
