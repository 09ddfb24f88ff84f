#!/bin/sh
# vmalloc-steps.sh: how the kernel maps iptables-legacy's table of N
# KUBE-SERVICES-like rules: the size of its vmalloc area (xt_alloc_table_info
# in /proc/vmallocinfo) for N from 44,000 to 50,000. Steps of 2 MiB mean the
# table is mapped with 2 MiB pages (kvmalloc's VM_ALLOW_HUGE_VMAP). Root; uses
# a scratch network namespace (svl-vmalloc), removed at the end.
set -eu
ns=svl-vmalloc
ip netns add $ns
trap 'ip netns del $ns' EXIT
rules() {
	echo '*nat'
	echo ':KUBE-SERVICES - [0:0]'
	echo '-A PREROUTING -j KUBE-SERVICES'
	i=0
	while [ $i -lt "$1" ]; do
		a=$((i + 10))
		echo "-A KUBE-SERVICES -d 10.96.$((a / 256)).$((a % 256))/32 -p tcp -m comment --comment \"ns/svc-$i:http cluster IP\" -m tcp --dport 80 -j ACCEPT"
		i=$((i + 1))
	done
	echo COMMIT
}
echo "rules  vmalloc_area_bytes  pages  (MiB, less the guard page)"
for n in 44000 45000 46000 47000 48000 49000 50000; do
	rules $n | ip netns exec $ns iptables-legacy-restore
	grep xt_alloc_table_info /proc/vmallocinfo | awk -v n=$n '$2 > 4194304 { printf "%-6d %-19d %s  %.4f\n", n, $2, $4, ($2 - 4096) / 1048576 }'
done
