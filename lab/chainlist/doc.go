// Package chainlist measures, on this machine, what one step of
// iptables-nft-restore's chain list costs: the userspace work that makes
// kube-proxy's iptables-nft syncs grow faster than quadratically.
//
// iptables-nft-restore --noflush (iptables 1.8.9, nft-cache.c,
// cache_chain_list_insert) keeps the name of every chain a command names
// in a sorted linked list, and finds each command's place by walking it
// from the head with strcmp. A kube-proxy payload names every chain in
// its declaration and in every rule that jumps to it, so the walk makes
// about 8·N² comparisons for N Services (sim/iptables.ChainListCompares
// counts them exactly). The list's nodes are allocated in the payload's
// declaration order, 352 bytes apart (one declaration's allocations),
// while the walk goes in name order, which hashed chain names make random
// in memory: once the list outgrows the caches and the TLB's reach, each
// step waits on memory. Walk builds the same list, laid out the same way,
// at a given length and times random lookups in it; the planner multiplies
// the steps a payload makes by the time of a step at that payload's list
// length (sim/cost).
package chainlist
