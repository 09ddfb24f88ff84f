#!/bin/sh
# Writes svclab plan check of this directory's three runs (19:34-19:41 UTC)
# against the embedded default (results/sweep-full-default, recorded at
# 07:50) and the two evening re-recordings of it, one Markdown file per
# calibration and run: check-NAME-CAL-RUN.md (plan check exits 1 when a
# figure misses, so the loop goes on). Run from the repository root,
# once with each build to compare:
#   SVCLAB=./bin/svclab sh results/plan-default-evening/check.sh now
#   SVCLAB=BUILD_OF_5e9863c sh results/plan-default-evening/check.sh before
set -u
svclab=${SVCLAB:-./bin/svclab}
name=${1:-now}
d=results/plan-default-evening
for cal in default:results/sweep-full-default 1914:$d/recording-1914 1942:$d/recording-1942; do
	while read -r run scenario; do
		$svclab plan check "$d/$run" --calibration "${cal#*:}" --max-n 100000 --from 5000 \
			--scenario "$scenario" --format markdown >"$d/check-$name-${cal%%:*}-$run.md" || true
	done <<LIST
mix-legacy results/plan-legacy-composition/mix-legacy.yaml
endpoints-3 results/plan-legacy-composition/endpoints-3.yaml
mix-affinity results/plan-recent/mix-iptables.yaml
LIST
done
