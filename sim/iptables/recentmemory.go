package iptables

// RecentListBytes is the kernel memory one xt_recent list takes, which no
// memory cgroup is charged for: recent_mt_check (net/netfilter/xt_recent.c)
// allocates a list, its struct recent_table and ip_list_hash_size hash
// buckets (128 by default), with kvzalloc(..., GFP_KERNEL), a 4 KiB kmalloc
// object. Measured (results/plan-families): restoring 2,000 rules that
// --set 2,000 lists into a scratch namespace grew kmalloc-4k's active
// objects by 1,996 and every memory group's kernel charges by 1.0 MB (the
// rules' own). A list's entries (one per client address it saw) come with
// traffic, not with the rules.
const RecentListBytes = 4096
