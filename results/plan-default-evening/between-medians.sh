#!/bin/sh
# Tabulates svclab plan check of this directory's six mix runs against the
# three evening recordings, with a build before the walk was read between a
# bent calibration's medians (BEFORE) and one with it (AFTER):
#   BEFORE=BUILD_OF_919c351 AFTER=BUILD sh results/plan-default-evening/between-medians.sh > results/plan-default-evening/between-medians.md
# CALS names the recordings to calibrate on (default the three above; the
# chord against a power law between the medians added 2330:
#   CALS="1914 1942 2124 2330" BEFORE=BUILD_OF_a23180e AFTER=POWER_LAW_BUILD sh ... > .../chord-or-power-law.md).
set -u
CALS=${CALS:-1914 1942 2124}
d=results/plan-default-evening
summary() { grep -o '^[0-9]* of [0-9]* targeted figures within target; [0-9]* of [0-9]*' | sed 's/ targeted figures within target;/,/'; }
echo "| calibration | run | before: within, covering | after: within, covering | iptables-legacy p50 (last), before → after |"
echo "| --- | --- | --- | --- | --- |"
for cal in $CALS; do
	while read -r run scenario; do
		for b in before after; do
			svclab=$BEFORE
			[ $b = after ] && svclab=$AFTER
			$svclab plan check "$d/$run" --calibration "$d/recording-$cal" --max-n 100000 --from 5000 \
				--scenario "$scenario" >"/tmp/between-$b.md" 2>/dev/null
		done
		p50() { grep '^| iptables-legacy | [0-9]* | p50 µs (last)' "$1" | awk -F'|' '{gsub(/ /,"",$7); print $7}'; }
		echo "| recording-$cal | $run | $(summary </tmp/between-before.md) | $(summary </tmp/between-after.md) | $(p50 /tmp/between-before.md) → $(p50 /tmp/between-after.md) |"
	done <"$d/mix-runs.txt" # each run of this directory and its scenario
done
rm -f /tmp/between-before.md /tmp/between-after.md
