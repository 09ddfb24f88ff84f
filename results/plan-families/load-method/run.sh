#!/bin/bash
# Loads 20,000 one-endpoint Services into iptables-nft the fast way (fast.yaml: syncLimit 0) and by a
# timed iptables-nft-restore --noflush full sync (noflush.yaml), twice, interleaved, and prints each
# run's last-position p50 and p99 (µs) and full sync (s): does the way a ruleset was loaded change what
# a first packet's walk costs?
# Usage (root, from the repository): results/plan-families/load-method/run.sh [SVCLAB]
set -e
svclab=${1:-svclab}
dir=$(mktemp -d /tmp/svl-load-method.XXXXXX)
trap 'rm -rf "$dir"' EXIT
here=results/plan-families/load-method
for i in 1 2; do
  for kind in fast noflush; do
    "$svclab" run "$here/$kind.yaml" --out "$dir/$kind-$i" --progress none > /dev/null 2>&1
    jq -r --arg k "$kind $i" 'select(.point) | .point | "\($k) p50 \(.p50_us) p99 \(.p99_us) full sync \(.sync_full_s // 0)"' "$dir/$kind-$i/results.jsonl"
  done
done
