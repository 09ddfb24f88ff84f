#!/usr/bin/env bash
# Kernel memory of the same loads at rest and beside two kinds of other
# processes, measured by two svclab binaries side by side, interleaved:
#   results/kernel-memory-others/run.sh BEFORE AFTER OUTDIR
# BEFORE and AFTER are svclab binaries (here: afa9698, and the commit that
# subtracts other memory groups' charges). Each run is scenario.yaml (the
# sweep of cmd/svclab's TestKernelMemoryIsTheSameOnEveryReload: 5,000
# Services, iptables-nft and nftables, reloaded every repetition, 4 loads a
# point); summary.txt lists each run's kernel_mem_bytes per load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
before=$1 after=$2 out=$3
mkdir -p "$out"
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Bursts of 2,000 empty files made and removed (dentries and inodes, in the
# caller's memory group), like a compiler writing its objects.
files() { while true; do d=$(mktemp -d -p "$scratch"); for i in $(seq 1 2000); do : > "$d/f$i"; done; sleep 0.3; rm -rf "$d"; sleep 0.2; done; }
# Processes that map and touch 600 MB and exit: page tables made and freed.
maps() { while true; do python3 -c "b = b'\\x01' * (600 << 20)"; sleep 0.2; done; }
# A compiler: go build -a of one package, again and again, in a scratch cache.
compile() { export GOCACHE=$(mktemp -d -p "$scratch"); cd "$root"; while true; do go build -a -o /dev/null ./sim/cost >/dev/null 2>&1; done; }

for load in rest files compile maps; do
  for which in before after; do
    bin=$before; [ $which = after ] && bin=$after
    pid=""
    case $load in
      files) files & pid=$! ;;
      compile) compile & pid=$! ;;
      maps) maps & pid=$! ;;
    esac
    sleep 2
    "$bin" run "$here/scenario.yaml" --out "$out/$load-$which" --progress none 2> "$out/$load-$which.log" || true
    if [ -n "$pid" ]; then pkill -P "$pid" || true; kill "$pid" || true; wait "$pid" 2>/dev/null || true; fi
    python3 - "$out/$load-$which" "$load" "$which" >> "$out/summary.txt" <<'PY'
import json, sys
d, load, which = sys.argv[1:]
per = {}
for line in open(d + "/results.jsonl"):
    p = json.loads(line).get("point")
    if p:
        per.setdefault(p["dataplane"], []).append(p.get("kernel_mem_bytes", 0) / 1e6)
print(f"{load:8} {which:7}", "  ".join(f"{k}: " + " ".join(f"{v:.2f}" for v in vs) for k, vs in sorted(per.items())))
PY
  done
done
cat "$out/summary.txt"
