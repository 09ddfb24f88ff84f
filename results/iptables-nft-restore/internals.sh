#!/bin/sh
# Records results/iptables-nft-restore/internals.txt: what iptables-nft-restore
# --noflush (Debian 12's iptables 1.8.9, xtables-nft-multi, stripped: the
# addresses are of that build) does inside, the facts lab/chainlist and
# sim/iptables.ChainListCompares rest on:
#  1. where its time goes on svclab's native payload of 5,000 Services
#     (perf record, flat profile by object and symbol; 0x1a11a-0x1a130 is
#     the list walk of cache_chain_list_insert, which starts at 0x1a100);
#  2. how many times cache_chain_list_insert runs and calls strcmp (the
#     call at 0x1a129) for 50 Services (sim/iptables counts 577 and 22,220
#     for the same payload);
#  3. the addresses its xtables_malloc returns for list nodes (returned at
#     0x1a14a) for 200 Services: consecutive nodes lie 352 bytes apart
#     (node-distances.sh, which takes any size).
# Run as root from the repository root. Needs perf and gdb (apt-get install
# linux-perf gdb; make setup installs neither, no test needs them):
#   sh results/iptables-nft-restore/internals.sh > results/iptables-nft-restore/internals.txt
set -eu
svclab=${SVCLAB:-./bin/svclab}
ns=svlexp-internals-$$
tmp=$(mktemp -d)
ip netns add "$ns"
trap 'ip netns delete "$ns"; rm -rf "$tmp"' EXIT
bin=/usr/sbin/xtables-nft-multi
sha256sum "$bin"
# 1. the profile
$svclab render --mode iptables --services 5000 --endpoints 1 --seed 29 >"$tmp/p5000"
perf record -q -o "$tmp/perf.data" ip netns exec "$ns" iptables-nft-restore --noflush <"$tmp/p5000" >/dev/null 2>&1
echo "5,000 Services: perf report, the top of the flat profile"
perf report -i "$tmp/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15
ip netns exec "$ns" nft flush ruleset
cat >"$tmp/base.py" <<'PY'
import gdb
def at(offset):
    for l in gdb.execute("info proc mappings", to_string=True).splitlines():
        if "xtables-nft-multi" in l:
            return int(l.split()[0], 16) + offset
PY
# 2. the counts
$svclab render --mode iptables --services 50 --endpoints 1 --seed 29 >"$tmp/p50"
cat >"$tmp/count.gdb" <<EOF2
set pagination off
set confirm off
starti
source $tmp/base.py
python gdb.execute("break *%d" % at(0x1a129))
python gdb.execute("break *%d" % at(0x1a100))
ignore 1 100000000
ignore 2 100000000
continue
info breakpoints
EOF2
echo "50 Services: breakpoint 1 = the strcmp call, 2 = cache_chain_list_insert"
ip netns exec "$ns" gdb -batch -x "$tmp/count.gdb" --args "$bin" iptables-nft-restore --noflush <"$tmp/p50" 2>&1 | grep -E "^[12] |already hit"
ip netns exec "$ns" nft flush ruleset
# 3. the node addresses (node-distances.sh, which makes its own namespace)
SVCLAB=$svclab sh "$(dirname "$0")/node-distances.sh" 200
