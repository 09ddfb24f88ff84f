#!/bin/sh
# Records results/iptables-nft-restore/declarations-ab.txt: the chain-list
# walk of iptables-nft-restore --noflush against lab/chainlist's price of
# the same walk, in turn, a few seconds apart. The payload is the
# declarations of svclab's native payload of N Services (kube-proxy's
# rules, 1 endpoint a Service, seed 29): every chain a full sync declares,
# in its order, and no rule, so the tool's user time is almost all the walk
# (N²/2 compares at 2N chains) and no other work has to be taken off. The
# replica's side is lab/chainlist's TestPayloadWalkPrice, which times the
# full layout anew each time (about 15 s) and prices the payload's walk as
# svclab plan prices a full sync's: value [interval]. Run as root from the
# repository root, nothing else running:
#   sh results/iptables-nft-restore/declarations-ab.sh [ROUNDS [N...]]
# (default 3 rounds of 20000 30000 45000: about 12 minutes here).
set -eu
svclab=${SVCLAB:-./bin/svclab}
rounds=${1:-3}
[ $# -gt 0 ] && shift
sizes=${*:-20000 30000 45000}
ns=svlexp-decl-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go test -c -o "$tmp/chainlist.test" ./lab/chainlist
for n in $sizes; do
	$svclab render --mode iptables --services "$n" --endpoints 1 --seed 29 | grep -E '^(\*|:|COMMIT)' >"$tmp/decl-$n"
done
iptables-nft --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# time, Services, side: replica: priced s [interval]; tool: wall s, user s, sys s"
for r in $(seq "$rounds"); do
	for n in $sizes; do
		price=$(SVCLAB_CHAINLIST_PAYLOAD="$tmp/decl-$n" "$tmp/chainlist.test" -test.run TestPayloadWalkPrice -test.v | grep -oE 'priced .*')
		echo "$(date -u +%T) $n replica $price"
		ip netns add "$ns"
		t=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-nft-restore --noflush <"$tmp/decl-$n"; } 2>&1 )
		ip netns delete "$ns"
		echo "$(date -u +%T) $n tool $t"
	done
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
