#!/bin/sh
# Prints, as a Markdown table, svclab plan check's iptables-legacy
# incremental (and full) syncs for this directory's runs against its
# calibrations (the second's runs: the mix again, and the full mix with
# ClientIP affinity of results/plan-recent), and for the runs of
# results/plan-legacy-composition (the same scenarios, two hours earlier)
# against both calibrations. Run from
# the repository root, once with each build to compare:
#   SVCLAB=./bin/svclab sh results/plan-legacy-incremental/check.sh
set -eu
svclab=${SVCLAB:-./bin/svclab}
d=results/plan-legacy-incremental
c=results/plan-legacy-composition
echo "| run | calibration | N | sync | predicted [95%] | measured | error | covered | ×calibration |"
echo "|---|---|--:|---|---|--:|--:|---|--:|"
while read -r run cal scenario; do
	$svclab plan check "$run" --calibration "$cal" --max-n 5000 --scenario "$scenario" 2>/dev/null |
		grep '^| iptables-legacy | [0-9]* | \(incremental\|full\) sync s' |
		awk -F' [|] ' -v run="$run" -v cal="$cal" '{sub(/ sync s$/, "", $3); printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", run, cal, $2, $3, $4, $5, $6, $9, $10}' | sed 's/ |$/|/; s/||$/|/'
done <<LIST
$d/mix-legacy $d/calibration $c/mix-legacy.yaml
$d/mix-legacy-b $d/calibration-b $c/mix-legacy.yaml
$d/mix-affinity $d/calibration-b results/plan-recent/mix-iptables.yaml
$d/synthetic-legacy $d/calibration $c/synthetic-legacy.yaml
$d/endpoints-3 $d/calibration $c/endpoints-3.yaml
$d/endpoints-8 $d/calibration $c/endpoints-8.yaml
$c/mix-legacy $d/calibration $c/mix-legacy.yaml
$c/synthetic-legacy $d/calibration $c/synthetic-legacy.yaml
$c/endpoints-3 $d/calibration $c/endpoints-3.yaml
$c/endpoints-8 $d/calibration $c/endpoints-8.yaml
$c/mix-legacy $c/calibration $c/mix-legacy.yaml
$c/synthetic-legacy $c/calibration $c/synthetic-legacy.yaml
$c/endpoints-3 $c/calibration $c/endpoints-3.yaml
$c/endpoints-8 $c/calibration $c/endpoints-8.yaml
LIST
