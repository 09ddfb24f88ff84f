#!/bin/bash
# Where the kernel's nftables chain objects lie, and what that does to the
# chain dump and to one kube-proxy-shaped incremental sync. Root; needs nft,
# go, python3 and tracefs at /sys/kernel/tracing (the tracing settings it
# changes are put back). Run from this directory: bash experiment.sh OUTDIR
set -euo pipefail
out=${1:?usage: experiment.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
(cd "$here/dumpclock" && go build -o "$out/dumpclock" .)
svclab render --mode nftables --services 50000 --endpoints 1 --seed 7 > "$out/full.nft"
chain=service-2XNNF6F4-synth-24/svc-24973/tcp/http
rule=$(grep -m1 "^add rule ip kube-proxy $chain " "$out/full.nft")
printf 'add element ip kube-proxy hairpin-connections { 10.255.1.9 . 10.255.1.9 . tcp . 80 }\nadd chain ip kube-proxy %s\nflush chain ip kube-proxy %s\n%s\n' "$chain" "$chain" "$rule" > "$out/inc.nft"

filter_before=$(cat $T/events/kmem/kmalloc/filter)
buffer_before=$(cat $T/buffer_size_kb)
restore_tracing() {
	echo 0 > $T/events/kmem/kmalloc/enable
	echo 0 > $T/events/kmem/kmalloc/filter
	[ "$filter_before" = none ] || echo "$filter_before" > $T/events/kmem/kmalloc/filter
	echo hash-ptr > $T/trace_options
	echo "$buffer_before" > $T/buffer_size_kb
	echo > $T/trace
	for ns in svl-place-pad svl-place; do ip netns del $ns 2>/dev/null || true; done
}
trap restore_tracing EXIT
echo nohash-ptr > $T/trace_options
echo 16384 > $T/buffer_size_kb
echo 'call_site.function == nf_tables_addchain.constprop.0 && bytes_req == 128' > $T/events/kmem/kmalloc/filter

# load CASE: load full.nft into a fresh namespace, recording where its
# chains were allocated, then time 5 rounds of dumps and incremental syncs.
load() {
	echo > $T/trace
	ip netns add svl-place
	echo 1 > $T/events/kmem/kmalloc/enable
	ip netns exec svl-place nft -f "$out/full.nft"
	echo 0 > $T/events/kmem/kmalloc/enable
	grep -o 'ptr=[0-9a-f]*' $T/trace | cut -d= -f2 > "$out/$1-ptrs.txt"
	python3 "$here/order.py" "$out/$1-ptrs.txt" > "$out/$1-order.txt"
	grep '^kmalloc-cg-128 ' /proc/slabinfo > "$out/$1-slabinfo.txt"
	ip netns exec svl-place "$out/dumpclock" 1 5 "$out/inc.nft" > "$out/$1.tsv"
	ip netns del svl-place
}
# pad K: a table of 55,000 x K empty chains in its own namespace, every
# K-th deleted: its slab pages keep 32/K holes each, which the next load's
# chains fill first (a packed kmalloc-cg-128 page holds 32 chains).
pad() {
	python3 - "$out" "$1" <<'PY'
import sys
out, k = sys.argv[1], int(sys.argv[2])
n = 55000 * k
with open(f'{out}/pad.nft', 'w') as f:
    f.write('add table ip svlpad\n')
    f.writelines(f'add chain ip svlpad p{i}\n' for i in range(n))
with open(f'{out}/punch.nft', 'w') as f:
    f.writelines(f'delete chain ip svlpad p{i}\n' for i in range(0, n, k))
PY
	ip netns add svl-place-pad
	ip netns exec svl-place-pad nft -f "$out/pad.nft"
	ip netns exec svl-place-pad nft -f "$out/punch.nft"
}
load packed
for k in 2 4 8 16; do
	pad $k
	load holes-$k
	ip netns del svl-place-pad
	sleep 5
done
load packed-again
for c in packed holes-2 holes-4 holes-8 holes-16 packed-again; do cat "$out/$c-order.txt"; done
