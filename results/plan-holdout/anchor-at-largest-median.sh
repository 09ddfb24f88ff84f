#!/bin/bash
# Compares two builds' svclab plan check of every recorded holdout (--max-n
# 5000), of results/plan-acceptance/final-2026-12-07's calibration against
# the evening runs and of sweeps calibrated on their sizes up to 10,000,
# 20,000 and 40,000 Services, for the change that grows a bent walk past the
# calibration from its largest median instead of from its line (BEFORE: a
# build of 2e1a13f, AFTER: a build with the change):
#   BEFORE=BUILD_OF_2e1a13f AFTER=BUILD bash results/plan-holdout/anchor-at-largest-median.sh > results/plan-holdout/anchor-at-largest-median.md
set -u
h=results/plan-holdout
f=results/plan-acceptance/final-2026-12-07
e=results/plan-default-evening
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary() { grep -o '^[0-9]* of [0-9]* targeted figures within target; [0-9]* of [0-9]*' | sed 's/ targeted figures within target;/,/'; }
# errors prints "dataplane|N|figure error" for each row of a plan check table.
errors() { awk -F'|' '/^\| [a-z]/ && $4 !~ /figure/ { gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4); gsub(/[ %]/, "", $7); k = $2 "|" $3 "|" $4; gsub(/ /, "_", k); print k, $7 }' "$1"; }
check() { # name, then plan check's arguments
	name=$1
	shift
	$BEFORE plan check "$@" >"$tmp/b.md" 2>/dev/null
	$AFTER plan check "$@" >"$tmp/a.md" 2>/dev/null
	join <(errors "$tmp/b.md" | sort) <(errors "$tmp/a.md" | sort) | awk -v n="$name" '$2 != $3 { print n, $0 }' >>"$tmp/changed"
	echo "| $name | $(summary <"$tmp/b.md") | $(summary <"$tmp/a.md") | $(grep -c "^$name " "$tmp/changed") |" | tee -a "$tmp/table"
}
: >"$tmp/changed"
echo "| check | before: within, covering | after: within, covering | rows changed |"
echo "| --- | --- | --- | --- |"
for r in $(ls -d $h/*/ | xargs -n1 basename); do
	case $r in legacy-sync-* | legacy-walk-modes | native-interrupted | nft-probe-vs-point*) continue ;; esac
	[ -f $h/$r/meta.json ] || continue
	check "$r" $h/$r --max-n 5000
done
check final-cal:recording-2124 $e/recording-2124 --calibration $f/calibration --max-n 5000
check final-cal:mix-legacy-2139 $e/mix-legacy-2139 --calibration $f/calibration --max-n 5000 --scenario results/plan-legacy-composition/mix-legacy.yaml
check final-cal:endpoints-3-2140 $e/endpoints-3-2140 --calibration $f/calibration --max-n 5000 --scenario results/plan-legacy-composition/endpoints-3.yaml
check final-cal:mix-affinity-2141 $e/mix-affinity-2141 --calibration $f/calibration --max-n 5000 --scenario results/plan-recent/mix-iptables.yaml
# Sweeps without walk probes: past the largest calibrated size a bent walk
# grows along its line, from its largest median now.
for r in results/sweep-full results/sweep-full-default results/sweep-full-ebpf $e/recording-1914 $e/recording-1942 $e/recording-2124 $e/recording-2330; do
	for m in 10000 20000 40000; do
		check "$(basename $r):max-n-$m" $r --max-n $m
	done
done
echo
awk -F'|' '{ split($3, b, /[ ,]+/); split($4, a, /[ ,]+/); wb += b[2]; cb += b[5]; wa += a[2]; ca += a[5]; n += b[4]; m += b[7] }
END { printf "over the %d checks: %d → %d of %d targeted figures within target, %d → %d of %d intervals covering\n", NR, wb, wa, n, cb, ca, m }' "$tmp/table"
awk '{ b = ($3 < 0 ? -$3 : $3) + 0; a = ($4 < 0 ? -$4 : $4) + 0; n++; closer += a < b; farther += a > b; sb += b; sa += a; d = a - b; if (d < 0) d = -d; if (d > dmax) dmax = d; print b > "'"$tmp"'/before"; print a > "'"$tmp"'/after" }
END { printf "%d rows changed: %d closer to the measurement, %d farther; mean |error| %.2f%% → %.2f%%; largest move %.1f points\n", n, closer, farther, sb / n, sa / n, dmax }' "$tmp/changed"
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "median |error| of the changed rows: $(med "$tmp/before")% → $(med "$tmp/after")%"
echo
echo "The changed rows (check, dataplane|N|figure, error before, after):"
echo
sed 's/^/    /' "$tmp/changed"
