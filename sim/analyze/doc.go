// Package analyze answers questions about a rule dump, whichever mode wrote
// it: `iptables-save` output or kube-proxy's iptables-restore payload,
// `nft list ruleset` output or kube-proxy's nft script, and `ipvsadm -Sn`
// (with the ipsets and iptables rules around it).
//
//   - Load detects the format and parses it (sim/iptables, sim/nftables,
//     sim/ipvs);
//   - NewTracer compiles the dump with its mode's tracer (sim/trace/iptrace,
//     nfttrace, ipvstrace), picked from modes, a table keyed by the dump's
//     kind with one row (an adapter to Tracer) per mode; Tracer.Trace walks
//     one sim/trace.Packet and returns one result shape for every mode: the
//     path, the verdict, masquerading, every reachable endpoint with its
//     probability, rules evaluated and map lookups;
//   - Analyze traces a first packet to every service and reports, per
//     service, its position, the rules its first packet costs and whether its
//     split is uniform, and in total the worst, mean and p99 cost and the
//     distribution of endpoints per service.
package analyze
