// Package nfttrace follows a packet through a parsed nftables ruleset the
// way the kernel's netfilter hooks would on a connection's first packet:
// the nat and filter base chains of prerouting (a packet from a pod) or
// output (from the node), the routing decision (input for a local
// destination, else forward), then postrouting. Where kube-proxy picks an
// endpoint with "numgen random mod N vmap { … }" (or, from v1.36, "dnat ip
// addr . port to numgen random mod N map { … }") the trace forks, each
// branch weighted 1/N, so the result lists every reachable endpoint with
// its exact probability, the rules on each path, whether the packet is
// masqueraded, and how many rules and verdict-map lookups it cost.
//
// A ruleset is compiled once (Compile); named verdict maps become Go maps
// keyed by the packet's concatenated fields, so tracing one packet costs
// the same whatever the number of services.
package nfttrace
