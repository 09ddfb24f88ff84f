#!/bin/bash
# Compares two builds' svclab plan check of this directory's six mix runs
# against the embedded default (results/sweep-full-default) and the four
# evening recordings (--max-n 100000 --from 5000, each with its scenario),
# for the change that reads a sync between two calibrated sizes as the form
# plus its misses of the two medians (BEFORE: a build of cf4e7bd, AFTER: that build with
# sync-between-medians.diff applied):
#   BEFORE=BUILD_OF_cf4e7bd AFTER=BUILD bash results/plan-default-evening/sync-between-medians.sh > results/plan-default-evening/sync-between-medians.md
set -u
d=results/plan-default-evening
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary() { grep -o '^[0-9]* of [0-9]* targeted figures within target; [0-9]* of [0-9]*' | sed 's/ targeted figures within target;/,/'; }
# syncs prints "dataplane|N|figure error" for each sync row of a plan check table.
syncs() { awk -F'|' '/^\| [a-z]/ && $4 ~ /sync/ { gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4); gsub(/[ %]/, "", $7); k = $2 "|" $3 "|" $4; gsub(/ /, "_", k); print k, $7 }' "$1"; }
: >"$tmp/changed"
echo "| calibration | run | before: within, covering | after: within, covering | sync rows changed |"
echo "| --- | --- | --- | --- | --- |"
for cal in default 1914 1942 2124 2330; do
	calibration="--calibration $d/recording-$cal"
	[ $cal = default ] && calibration="--calibration results/sweep-full-default"
	while read -r run scenario; do
		$BEFORE plan check "$d/$run" $calibration --max-n 100000 --from 5000 --scenario "$scenario" >"$tmp/b.md" 2>/dev/null
		$AFTER plan check "$d/$run" $calibration --max-n 100000 --from 5000 --scenario "$scenario" >"$tmp/a.md" 2>/dev/null
		join <(syncs "$tmp/b.md" | sort) <(syncs "$tmp/a.md" | sort) | awk -v n="$cal:$run" '$2 != $3 { print n, $0 }' >>"$tmp/changed"
		echo "| $cal | $run | $(summary <"$tmp/b.md") | $(summary <"$tmp/a.md") | $(grep -c "^$cal:$run " "$tmp/changed") |"
	done <"$d/mix-runs.txt" # each run of this directory and its scenario
done
echo
awk '{ b = ($3 < 0 ? -$3 : $3) + 0; a = ($4 < 0 ? -$4 : $4) + 0; n++; closer += a < b; farther += a > b; sb += b; sa += a; wb += b <= 10; wa += a <= 10 }
END { if (n) printf "%d sync rows changed: %d closer to the measurement, %d farther; mean |error| %.1f%% → %.1f%%; within 10%%: %d → %d\n", n, closer, farther, sb / n, sa / n, wb, wa }' "$tmp/changed"
echo
echo "The changed rows (calibration:run, dataplane|N|figure, error before, after):"
echo
sed 's/^/    /' "$tmp/changed"
