#!/bin/sh
# summarize.sh: per run and point, the p50 of every repetition in order and
# their 10th, 50th and 90th percentiles (µs). Needs jq.
set -eu
cd "$(dirname "$0")"
echo "# First-packet p50 (µs) of every repetition, per run"
echo
echo "Made by \`summarize.sh\` from the runs in COMMAND. pinned: the scenario's sweep.probeCPU (meta.json probe_cpu)."
echo
echo "| run | pinned | started | point | p10 | p50 | p90 | every repetition's p50, in order |"
echo "| --- | --- | --- | --- | --: | --: | --: | --- |"
for d in round1-free round1-cpu0 round1-cpu1 round2-free round2-cpu0 round2-cpu1 round3-free round3-cpu0 round3-cpu1 \
	walk-50k-free walk-50k-cpu0 walk-50k-cpu1 walk-50k-reload-cpu1; do
	[ -f "$d/results.jsonl" ] || continue
	jq -rs --arg run "$d" '
	  (.[] | select(.type == "meta") | .meta) as $m
	  | [.[] | select(.type == "point") | .point]
	  | group_by([.dataplane, .services, .position])
	  | .[]
	  | (sort_by(.repetition) | map(.p50_us)) as $v
	  | ($v | sort) as $s
	  | "| \($run) | \($m.probe_cpu // "no") | \($m.started[11:19]) | \(.[0].dataplane) \(.[0].services) \(.[0].position) | \($s[($s|length)/10|floor]|floor) | \($s[($s|length)/2|floor]|floor) | \($s[($s|length)*9/10|floor]|floor) | \($v | map(floor|tostring) | join(" ")) |"
	' "$d/results.jsonl"
done
