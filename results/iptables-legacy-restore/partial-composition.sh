#!/bin/sh
# Records results/iptables-legacy-restore/partial-composition.txt: what an
# iptables-legacy incremental sync's time follows. Each round restores a
# full IPv4 payload into a fresh scratch namespace (untimed), then times
# kube-proxy's partial payload after its middle Service changed, twice:
#   mix          the cluster-500 mix at 20× without affinity
#                (results/plan-legacy-composition/mix-legacy.yaml, 9,540)
#   same-chains  one-endpoint Services with as many chains (46,625)
#   same-rules   one-endpoint Services with as many rules (55,173)
#   chains-dup   same-chains' table with each endpoint chain's rules twice,
#                same-chains' partial payload (more table rules only)
# Payloads from partial-payloads.go.txt (built as its comment says). Tool:
# wall, user, sys seconds of each partial restore. Run as root from the
# repository root, nothing else running (about 2 minutes here):
#   sh results/iptables-legacy-restore/partial-composition.sh [ROUNDS]
set -eu
rounds=${1:-3}
ns=svlexp-part-$$
tmp=$(mktemp -d)
trap 'ip netns delete "$ns" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
cp results/iptables-legacy-restore/partial-payloads.go.txt "$tmp/src/main.go"
mkdir -p x-partial-payloads && cp "$tmp/src/main.go" x-partial-payloads/main.go
go build -o "$tmp/partial-payloads" ./x-partial-payloads
rm -r x-partial-payloads
d=results/plan-legacy-composition
"$tmp/partial-payloads" $d/mix-legacy.yaml 9540 1 "$tmp/mix" >/dev/null
"$tmp/partial-payloads" $d/synthetic-legacy.yaml 46625 1 "$tmp/same-chains" >/dev/null
"$tmp/partial-payloads" $d/synthetic-legacy.yaml 55173 1 "$tmp/same-rules" >/dev/null
awk '{print} /^-A KUBE-SEP-/{print}' "$tmp/same-chains-full" >"$tmp/chains-dup-full"
cp "$tmp/same-chains-partial" "$tmp/chains-dup-partial"
iptables-legacy --version
echo "# $(date -u +%FT%TZ) kernel $(uname -r), $(nproc) CPUs, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
for f in mix same-chains same-rules chains-dup; do
	for k in full partial; do
		echo "# $f-$k: $(grep -c '^-A' "$tmp/$f-$k") rules, $(grep -c '^:' "$tmp/$f-$k") chains, $(wc -c <"$tmp/$f-$k") bytes"
	done
done
echo "# time, round, payload, first partial restore: wall s, user s, sys s | second"
for r in $(seq "$rounds"); do
	for f in mix same-chains same-rules chains-dup; do
		ip netns add "$ns"
		ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/$f-full"
		a=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/$f-partial"; } 2>&1 )
		b=$( { /usr/bin/time -f "%e %U %S" ip netns exec "$ns" iptables-legacy-restore --noflush <"$tmp/$f-partial"; } 2>&1 )
		ip netns delete "$ns"
		echo "$(date -u +%T) $r $f $a | $b"
	done
done
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
