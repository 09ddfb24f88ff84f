#!/bin/sh
# Records results/iptables-nft-restore/noflush-sizes.txt: the user and system
# CPU time of iptables-nft-restore --noflush (what kube-proxy runs for a
# sync) for svclab's native payload of N Services (kube-proxy's rules, 1
# endpoint a Service, seed 29), each restored alone into a fresh scratch
# namespace, nothing else running, sizes in the order given. Run as root
# from the repository root:
#   sh results/iptables-nft-restore/noflush-sizes.sh [N...]
# (default 5000 10000 20000 30000 50000: about an hour here, most of it
# the 50,000).
set -eu
svclab=${SVCLAB:-./bin/svclab}
ns=svlexp-noflush-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
iptables-nft --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# Services, payload lines, chains declared, wall s, user s, sys s"
for n in ${*:-5000 10000 20000 30000 50000}; do
	$svclab render --mode iptables --services "$n" --endpoints 1 --seed 29 >"$tmp/rules"
	lines=$(wc -l <"$tmp/rules")
	chains=$(grep -c '^:' "$tmp/rules")
	ip netns add "$ns"
	t=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-nft-restore --noflush <"$tmp/rules"; } 2>&1 )
	ip netns delete "$ns"
	echo "$n $lines $chains $t"
	sleep 3
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
