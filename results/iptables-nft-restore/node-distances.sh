#!/bin/sh
# Records results/iptables-nft-restore/node-distances.txt: the addresses iptables-nft-restore --noflush
# (Debian 12, iptables 1.8.9) gives its chain-list nodes (xtables_malloc returning at 0x1a14a in
# cache_chain_list_insert, as internals.sh part 3) for a full payload of N Services, and the distances
# between consecutive nodes: does the 352-byte layout lab/chainlist times hold at tens of thousands of
# Services, not only at 200? Needs gdb (not installed by make setup). Run as root from the repository root:
#   SVCLAB=./bin/svclab sh results/iptables-nft-restore/node-distances.sh N
set -eu
svclab=${SVCLAB:-./bin/svclab}
n=$1
ns=svlexp-nodes-$$
tmp=$(mktemp -d)
ip netns add "$ns"
trap 'ip netns delete "$ns"; rm -rf "$tmp"' EXIT
bin=/usr/sbin/xtables-nft-multi
cat >"$tmp/base.py" <<'PY'
import gdb
def at(offset):
    for l in gdb.execute("info proc mappings", to_string=True).splitlines():
        if "xtables-nft-multi" in l:
            return int(l.split()[0], 16) + offset
PY
$svclab render --mode iptables --services $n --endpoints 1 --seed 29 >"$tmp/p"
cat >"$tmp/nodes.gdb" <<EOF2
set pagination off
set confirm off
starti
source $tmp/base.py
python gdb.execute("break *%d" % at(0x1a14a))
commands 1
silent
printf "node %lx\n", \$rax
continue
end
continue
EOF2
ip netns exec "$ns" gdb -batch -x "$tmp/nodes.gdb" --args "$bin" iptables-nft-restore --noflush <"$tmp/p" 2>&1 | grep '^node ' >"$tmp/nodes"
echo "$n Services: $(wc -l <"$tmp/nodes") nodes; distance to the previous node, count (top 6); the longest runs of nodes less than 100 kB apart"
python3 -c "
import collections,sys
v=[int(l.split()[1],16) for l in open(sys.argv[1])]
for d,c in collections.Counter(b-a for a,b in zip(v,v[1:])).most_common(6): print(d,c)
runs=[];cur=[v[0]]
for a,b in zip(v,v[1:]):
    if abs(b-a)<100000: cur.append(b)
    else: runs.append(cur);cur=[b]
runs.append(cur)
for r in sorted(runs,key=len,reverse=True)[:3]: print('run of',len(r),'nodes over',(max(r)-min(r))/1e6,'MB:',(max(r)-min(r))/len(r),'bytes a node')
" "$tmp/nodes"
