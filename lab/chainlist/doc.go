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
// counts them exactly). The list's nodes are allocated in the order the
// payload names new chains, a fixed distance apart (Layouts: 352 bytes in
// a full sync's payload, 1,808 in kube-proxy's partial one), while the
// walk goes in name order, which hashed chain names make random in
// memory: once the list outgrows the caches and the TLB's reach, each
// step waits on memory, the longer the further apart the nodes lie.
// Measure builds the same lists, laid out the same ways and their pages
// first written in address order as the tool's heap is, at given lengths,
// and times random lookups in them, a walk's warm steps (over nodes a
// recent walk passed) apart from its cold ones; the planner multiplies
// the cold and the warm steps a payload makes by the time of such a step
// on that payload's layout at its list's length (sim/cost).
package chainlist
