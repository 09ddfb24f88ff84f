#!/bin/bash
# Kernel memory of one ruleset loaded alone into a fresh network namespace:
# the growth of Slab and of VmallocUsed (/proc/meminfo) across the load.
# Usage (root): isolated.sh SVCLAB OUTDIR ROUNDS
# Renders each size with `svclab render`, then per round (the second in
# reverse order, so drift does not pass for size) creates the namespace
# svl-hashmem, loads the rules (nft -f; iptables-nft-restore without
# --noflush), waits 2 s, reads /proc/meminfo, deletes the namespace and
# waits 4 s for its memory to be freed. Prints: mode services slab_MB vmalloc_MB.
set -euo pipefail
svclab=$1 out=$2 rounds=${3:-2}
ns=svl-hashmem
nft_sizes="40000 48000 49000 49100 49140 49200 50000 52000"
ipt_sizes="24400 24550 24700 24850"
mkdir -p "$out"
trap 'ip netns del $ns 2>/dev/null || true' EXIT
for n in $nft_sizes; do "$svclab" render --mode nftables --services "$n" --endpoints 1 > "$out/nftables-$n"; done
for n in $ipt_sizes; do "$svclab" render --mode iptables --services "$n" --endpoints 1 > "$out/iptables-$n"; done
meminfo() { awk '/^Slab:/{s=$2} /^VmallocUsed:/{v=$2} END{print s, v}' /proc/meminfo; }
one() {
	local mode=$1 n=$2
	ip netns add $ns
	sleep 1
	read -r s0 v0 < <(meminfo)
	if [ "$mode" = nftables ]; then
		ip netns exec $ns nft -f "$out/nftables-$n"
	else
		ip netns exec $ns iptables-nft-restore < "$out/iptables-$n"
	fi
	sleep 2
	read -r s1 v1 < <(meminfo)
	ip netns del $ns
	sleep 4
	awk -v m="$mode" -v n="$n" -v ds=$((s1 - s0)) -v dv=$((v1 - v0)) 'BEGIN{printf "%s %s %.2f %.2f\n", m, n, ds*1024/1e6, dv*1024/1e6}'
}
for r in $(seq 1 "$rounds"); do
	sizes_n=$nft_sizes sizes_i=$ipt_sizes
	if [ $((r % 2)) -eq 0 ]; then
		sizes_n=$(echo $nft_sizes | tr ' ' '\n' | tac | tr '\n' ' ')
		sizes_i=$(echo $ipt_sizes | tr ' ' '\n' | tac | tr '\n' ' ')
	fi
	for n in $sizes_n; do one nftables "$n"; done
	for n in $sizes_i; do one iptables-nft "$n"; done
done
