#!/usr/bin/env bash
# Independent check of svclab's iptables slope with plain tools only:
# ip netns, iptables-restore, and a python3 connect loop. No svclab code.
#
# It builds three namespaces (client, node, pod), loads into the node's nat
# table N kube-proxy-shaped KUBE-SERVICES rules that do not match, followed
# by one that DNATs to the pod, and times 3000 sequential TCP connects from
# the client with python3. It does this for N=1 and N=$N and prints the
# median connect time of each and the difference per service.
#
# Usage: sudo N=20000 BACKEND=legacy bash results/independent-check/check.sh
set -euo pipefail
N=${N:-20000}
BACKEND=${BACKEND:-legacy}
P=svl-chk$$
LISTENER=
trap '[ -n "$LISTENER" ] && kill $LISTENER 2>/dev/null; for n in cli node pod; do ip netns del $P-$n 2>/dev/null || true; done' EXIT
for n in cli node pod; do ip netns add $P-$n; ip -n $P-$n link set lo up; done
ip -n $P-node link add c0 type veth peer name eth0 netns $P-cli
ip -n $P-node link add p0 type veth peer name eth0 netns $P-pod
ip -n $P-node addr add 10.244.255.254/24 dev c0; ip -n $P-node link set c0 up
ip -n $P-node addr add 10.244.0.254/24 dev p0; ip -n $P-node link set p0 up
ip -n $P-cli addr add 10.244.255.1/24 dev eth0; ip -n $P-cli link set eth0 up
ip -n $P-cli route add default via 10.244.255.254
ip -n $P-pod addr add 10.244.0.2/24 dev eth0; ip -n $P-pod link set eth0 up
ip -n $P-pod route add default via 10.244.0.254
ip netns exec $P-node sysctl -qw net.ipv4.ip_forward=1
ip netns exec $P-pod python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8080)); s.listen(4096)
while True:
    c, _ = s.accept(); c.close()' &
LISTENER=$!
sleep 0.5

# rules N: N-1 non-matching service rules, then the target's.
rules() {
  awk -v n="$1" 'BEGIN {
    print "*nat"; print ":KUBE-SERVICES - [0:0]"; print ":KUBE-SVC-TARGET - [0:0]"
    print "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
    for (i = 1; i < n; i++)
      printf "-A KUBE-SERVICES -m comment --comment \"ns/svc-%d:http cluster IP\" -m tcp -p tcp -d 10.%d.%d.%d --dport 80 -j KUBE-SVC-TARGET\n", i, 97 + int(i / 65536), int(i / 256) % 256, i % 256
    print "-A KUBE-SERVICES -m comment --comment \"ns/target:http cluster IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-SVC-TARGET"
    print "-A KUBE-SVC-TARGET -m tcp -p tcp -j DNAT --to-destination 10.244.0.2:8080"
    print "COMMIT" }'
}

median_connect_us() {
  ip netns exec $P-cli python3 -c '
import socket, struct, time, statistics
lat = []
for i in range(3300):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    t = time.perf_counter_ns(); s.connect(("10.96.0.10", 80)); d = time.perf_counter_ns() - t
    s.close()
    if i >= 300: lat.append(d)
print("%.1f" % (statistics.median(lat) / 1000))'
}

declare -A med
for n in 1 "$N"; do
  ip netns exec $P-node iptables-$BACKEND-restore <<<$'*nat\nCOMMIT'
  rules "$n" | ip netns exec $P-node iptables-$BACKEND-restore
  ip netns exec $P-node conntrack -F 2>/dev/null || true
  med[$n]=$(median_connect_us)
  echo "iptables-$BACKEND, target after $n rules: median connect ${med[$n]} µs"
done
awk -v a="${med[1]}" -v b="${med[$N]}" -v n="$N" 'BEGIN { printf "slope: %.1f ns per service\n", (b - a) * 1000 / (n - 1) }'
