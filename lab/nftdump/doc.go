// Package nftdump measures, on this machine, what one step of the kernel's
// walk through an nftables table's chains costs while it dumps them to nft:
// the work that makes nftables' incremental syncs grow quadratically, and
// vary several times over with where the chain objects lie in memory.
//
// nft fills its cache before every change with a netlink dump of the
// kernel's chains. The kernel (nf_tables_dump_chains) sends them in
// messages of about 32 KiB and resumes the dump for every message by
// walking the table's chain list from its start, skipping the chains it
// already sent: C chains in messages of k walk about C²/2k steps
// (sim/cost.ChainDumpSteps). Each step reads one chain object (128 bytes,
// kmalloc-cg-128, 32 to a slab page): about 10 ns when a table's chains lie
// packed, several times that when they lie spread over more pages, as a
// table loaded while the slab cache has holes does
// (results/nft-chain-placement).
//
// Measure loads the chains of svclab's own nftables ruleset of a given size
// (sim/route's rendering) into a namespace of the run's, packed (into the
// slab cache as it is) and spread (while a padding table in another
// namespace holds Options.Holes free slots on each of its pages), and times
// the dump with nft's receive buffer and with a 4 KiB one, which makes
// about 8 times the messages and so 8 times the walk: the difference of the
// two times over the difference of the steps the kernel walked prices one
// step. The planner multiplies an incremental sync's steps by it
// (sim/cost.ChainDumpPrice).
package nftdump
