// Package ipvs parses what a node's IPVS dataplane prints: the ipset
// contents kube-proxy's IPVS mode and CNIs keep (`ipset save`), and answers
// whether a packet is in a set, the way xt_set's --match-set does.
//
// The package is pure: it never executes ipset or ipvsadm.
package ipvs
