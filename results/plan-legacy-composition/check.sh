#!/bin/sh
# Prints, as a Markdown table, svclab plan check's iptables-legacy full
# syncs for every recorded run of a mix (and this directory's own runs),
# each against the calibration it was checked with. Run from the
# repository root, once with each build to compare:
#   SVCLAB=./bin/svclab sh results/plan-legacy-composition/check.sh
set -eu
svclab=${SVCLAB:-./bin/svclab}
d=results/plan-legacy-composition
echo "| run | calibration | N | predicted [95%] | measured | error | covered | ×calibration |"
echo "|---|---|--:|---|--:|--:|---|--:|"
while read -r run cal scenario; do
	$svclab plan check "$run" --calibration "$cal" --max-n 5000 --scenario "$scenario" 2>/dev/null |
		grep '^| iptables-legacy | [0-9]* | full sync s' |
		awk -F' [|] ' -v run="$run" -v cal="$cal" '{printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", run, cal, $2, $4, $5, $6, $9, $10}' | sed 's/ |$/|/; s/||$/|/'
done <<LIST
results/plan-mix-check/measured results/plan-mix-check/calibration results/plan-mix-check/cluster-500-x20.yaml
results/plan-mix-check/measured-modelled results/plan-mix-check/calibration results/plan-mix-check/cluster-500-x20-modelled.yaml
results/plan-addrtype/measured-modelled results/plan-addrtype/calibration results/plan-mix-check/cluster-500-x20-modelled.yaml
results/plan-addrtype/modelled results/plan-addrtype/calibration results/plan-addrtype/modelled.yaml
results/plan-addrtype/clusterip-only results/plan-addrtype/calibration results/plan-addrtype/clusterip-only.yaml
results/plan-addrtype/mix-iptables results/plan-addrtype/calibration results/plan-addrtype/mix-iptables.yaml
results/plan-recent/mix-iptables results/plan-recent/calibration results/plan-recent/mix-iptables.yaml
results/plan-families/mix-iptables results/plan-recent/calibration results/plan-recent/mix-iptables.yaml
$d/mix-legacy $d/calibration $d/mix-legacy.yaml
$d/synthetic-legacy $d/calibration $d/synthetic-legacy.yaml
$d/endpoints-3 $d/calibration $d/endpoints-3.yaml
$d/endpoints-8 $d/calibration $d/endpoints-8.yaml
LIST
