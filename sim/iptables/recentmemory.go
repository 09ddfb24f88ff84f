package iptables

import "math/bits"

// RecentDefaultHashBuckets is xt_recent's ip_list_hash_size with its
// default ip_list_tot of 100 addresses a list: recent_mt_init sets it to
// 1 << fls(ip_list_tot), whatever the module parameter said.
const RecentDefaultHashBuckets = 128

// recentTableHeaderBytes is sizeof(struct recent_table) on a 64-bit
// kernel up to its hash buckets (net/netfilter/xt_recent.c): its list
// link (16), name (XT_RECENT_NAME_LEN, 200), mask (16), refcnt, entries
// (4 each) and nstamps_max_mask (1) padded to 8, its LRU list (16).
const recentTableHeaderBytes = 264

// recentBucketBytes is one hash bucket, a struct list_head.
const recentBucketBytes = 16

// RecentListBytes is the kernel memory one xt_recent list takes with
// buckets hash buckets (the machine's ip_list_hash_size; 0 or less:
// RecentDefaultHashBuckets), which no memory cgroup is charged for:
// recent_mt_check allocates the list, its struct recent_table and its
// buckets, with kvzalloc(..., GFP_KERNEL), which rounds the request up to
// a power of two (a kmalloc cache up to 8 KiB, whole pages of a power-of-
// two order above): 2,312 bytes, a 4 KiB object, by default. Measured
// (results/plan-families): restoring 2,000 rules that --set 2,000 lists
// into a scratch namespace grew kmalloc-4k's active objects by 1,996 and
// every memory group's kernel charges by 1.0 MB (the rules' own). A list's
// entries (one per client address it saw) come with traffic, not with the
// rules.
func RecentListBytes(buckets int) int64 {
	if buckets <= 0 {
		buckets = RecentDefaultHashBuckets
	}
	size := uint64(recentTableHeaderBytes + recentBucketBytes*buckets)
	return int64(1) << bits.Len64(size-1)
}
