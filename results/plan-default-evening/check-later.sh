#!/bin/sh
# Writes svclab plan check of the three runs made at 21:39-21:46 UTC, right
# after recording-2124, against the embedded default (results/sweep-full-default,
# 07:50) and recording-2124: check-later-CAL-RUN.md (plan check exits 1
# when a figure misses, so the loop goes on). Run from the repository root:
#   SVCLAB=./bin/svclab sh results/plan-default-evening/check-later.sh
set -u
svclab=${SVCLAB:-./bin/svclab}
d=results/plan-default-evening
for cal in default:results/sweep-full-default 2124:$d/recording-2124; do
	while read -r run scenario; do
		$svclab plan check "$d/$run" --calibration "${cal#*:}" --max-n 100000 --from 5000 \
			--scenario "$scenario" --format markdown >"$d/check-later-${cal%%:*}-${run%-*}.md" || true
	done <<LIST
mix-legacy-2139 results/plan-legacy-composition/mix-legacy.yaml
endpoints-3-2140 results/plan-legacy-composition/endpoints-3.yaml
mix-affinity-2141 results/plan-recent/mix-iptables.yaml
LIST
done
