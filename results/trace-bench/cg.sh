#!/bin/bash
# cg.sh TESTBINARY: the tracer's instructions and L1 data read misses per
# packet on BenchmarkTrace10kServices/paths, load-independent: cachegrind of
# 60,000 and 20,000 packets, the difference over the tracer's own lines
# (iptrace, netip, slices, memmove, maps, write barriers and slice copies), divided by 40,000.
set -e
b=$(realpath "$1"); d=$(mktemp -d); cd "$d"
for n in 20000 60000; do
	GOGC=off valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=33554432,16,64 \
		--cachegrind-out-file=cg-$n.out "$b" -test.run '^$' -test.bench 'Trace10k/^paths$' \
		-test.benchtime ${n}x >log-$n.txt 2>&1
done
cg_diff cg-20000.out cg-60000.out >diff.out 2>/dev/null
cg_annotate --auto=no --threshold=0 --show=Ir,D1mr diff.out | sed 's/([^)]*)//g' |
	grep -E 'iptrace|netip|slices|memmove|mapaccess|mbarrier|growslice' >funcs.txt
awk '{ir=$1; gsub(",","",ir); d=$2; gsub(",","",d); I+=ir; D+=d}
	END {printf "%.0f instructions/packet, %.2f L1d read misses/packet\n", I/40000, D/40000}' funcs.txt
awk '{ir=$1; gsub(",","",ir); d=$2; gsub(",","",d); if (ir/40000 >= 100 || d/40000 >= 0.3)
	printf "  %6.0f %6.2f %s\n", ir/40000, d/40000, $NF}' funcs.txt | sort -rn
echo "(files in $d)"
