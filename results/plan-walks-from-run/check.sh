#!/bin/sh
# Every recorded sweep with a calibration made apart from it and an
# iptables-nft sync held out, checked twice: with the calibration's own
# chain-list walk, then with the walk the measured run timed itself
# (svclab plan check --walks-from-run). Prints a Markdown table of the rows
# whose prediction differs. Run from the repository's root:
#   sh results/plan-walks-from-run/check.sh > results/plan-walks-from-run/table.md
set -eu
SVCLAB=${SVCLAB:-svclab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| run | calibration | N | figure | with the calibration's walk [95%] | error | with the run's own walk [95%] | error | measured |"
echo "| --- | --- | --: | --- | --- | --: | --- | --: | --: |"
while read -r run cal scenario; do
	set -- --calibration "$cal" --max-n 5000 --format json
	[ "$scenario" = - ] || set -- "$@" --scenario "$scenario"
	"$SVCLAB" plan check "$run" "$@" > "$tmp/own.json" 2>/dev/null || true
	"$SVCLAB" plan check "$run" "$@" --walks-from-run > "$tmp/run.json" 2>/dev/null || true
	jq -rn --arg run "${run#results/}" --arg cal "${cal#results/}" \
		--slurpfile a "$tmp/own.json" --slurpfile b "$tmp/run.json" '
		def g: if . >= 100 then (. * 1 | round | tostring) elif . >= 10 then ((. * 10 | round) / 10 | tostring) else ((. * 100 | round) / 100 | tostring) end;
		def e: (. * 1000 | round) as $t | ($t | fabs) as $u | (if $t >= 0 then "+" else "−" end) + ($u / 10 | floor | tostring) + "." + ($u % 10 | tostring) + "%";
		def cov($c): if $c then "" else " (not covered)" end;
		[$a[0].rows, $b[0].rows] | transpose[] | select(.[0].predicted.value != .[1].predicted.value) |
		"| \($run) | \($cal) | \(.[0].services) | \(.[0].dataplane) \(.[0].figure) | \(.[0].predicted.value|g) [\(.[0].predicted.lo|g), \(.[0].predicted.hi|g)] | \(.[0].error|e)\(cov(.[0].covered)) | \(.[1].predicted.value|g) [\(.[1].predicted.lo|g), \(.[1].predicted.hi|g)] | \(.[1].error|e)\(cov(.[1].covered)) | \(.[0].measured|g) |"'
done <<'PAIRS'
results/plan-iptables-nft-sync/sync-check results/plan-iptables-nft-sync/calibration -
results/plan-iptables-nft-sync/sync-check-layouts results/plan-iptables-nft-sync/calibration-layouts -
results/plan-iptables-nft-sync/sync-check-rounds results/plan-iptables-nft-sync/calibration-swing -
results/plan-iptables-nft-sync/sync-check-touched results/plan-iptables-nft-sync/calibration-touched -
results/plan-iptables-nft-sync/sync-check-warm results/plan-iptables-nft-sync/calibration-warm -
results/plan-calibrate-check/measured results/plan-calibrate-check/calibration-a -
results/plan-calibrate-check/measured-2 results/plan-calibrate-check/calibration-c -
results/plan-families/mix-iptables-nft-sync results/plan-families/end-to-end/calibration results/plan-families/mix-iptables-nft-sync.yaml
results/plan-families/mix-iptables results/plan-recent/calibration results/plan-recent/mix-iptables.yaml
results/plan-walks-from-run/measured results/plan-walks-from-run/calibration-before -
results/plan-walks-from-run/measured results/plan-walks-from-run/calibration-after -
results/plan-walks-from-run/b/measured results/plan-walks-from-run/b/calibration-before -
results/plan-walks-from-run/b/measured results/plan-walks-from-run/b/calibration-after -
PAIRS
