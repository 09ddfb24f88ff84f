package host

import (
	"strconv"
)

// recentHashSizeFile is xt_recent's ip_list_hash_size as the kernel set
// it (recent_mt_init: 1 << fls(ip_list_tot)), present once xt_recent is
// built in or loaded.
const recentHashSizeFile = "/sys/module/xt_recent/parameters/ip_list_hash_size"

// RecentHashBuckets is xt_recent's hash buckets a list on this machine
// (iptables.RecentListBytes sizes a list's kernel memory with it), 0 when
// the kernel does not say (xt_recent not loaded yet).
func RecentHashBuckets() int {
	return parseRecentHashSize(readTrim(recentHashSizeFile))
}

// parseRecentHashSize reads the parameter's text: a positive count, else 0.
func parseRecentHashSize(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
