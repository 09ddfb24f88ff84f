#!/bin/sh
# Records results/iptables-nft-restore: why kube-proxy's first iptables-nft
# sync of 10k Services takes minutes here. kube-proxy v1.37's own
# iptables-restore payload for N Services x 2 endpoints (svclab render
# --engine kube-proxy) is restored into an empty scratch namespace three
# ways: iptables-nft-restore --noflush (what kube-proxy runs),
# iptables-nft-restore without --noflush, and iptables-legacy-restore
# --noflush; user and system CPU seconds are printed (wall time depends on
# the machine's load; CPU time much less). Run as root from the repository
# root with the drivers built (make kube-proxy, or SVCLAB_KUBE_PROXY_DRIVERS):
#   sudo sh results/iptables-nft-restore/make.sh [N...]   (default 1000 2000 4000)
# 10000 with --noflush takes about 4 minutes of CPU: give it explicitly.
set -eu
svclab=${SVCLAB:-./bin/svclab}
ns=iptables-nft-restore-$$
tmp=$(mktemp -d)
ip netns add "$ns"
trap 'ip netns delete "$ns"; rm -rf "$tmp"' EXIT
empty() { # remove what the previous restore wrote
	ip netns exec "$ns" nft flush ruleset
	for t in filter nat; do
		ip netns exec "$ns" iptables-legacy -t $t -F
		ip netns exec "$ns" iptables-legacy -t $t -X
	done
}
iptables-nft --version
for n in ${*:-1000 2000 4000}; do
	$svclab render --mode iptables --services "$n" --endpoints 2 --engine kube-proxy --kube-proxy-version 1.37 >"$tmp/rules"
	echo "$n Services: $(wc -l <"$tmp/rules") lines, $(grep -c '^:' "$tmp/rules") chains"
	for tool in "iptables-nft-restore --noflush" "iptables-nft-restore" "iptables-legacy-restore --noflush"; do
		empty
		/usr/bin/time -f "  $tool: user %U s, sys %S s, wall %e s" ip netns exec "$ns" $tool <"$tmp/rules"
	done
done
empty
