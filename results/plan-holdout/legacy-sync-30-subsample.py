# How far a median of k loads of iptables-legacy's full sync strays from
# the median of all of a run's loads: for each size in the run (the points'
# loads and the sync probes'), the median of all loads, each load's
# coefficient of variation, and the share of the medians of k loads drawn
# at random (without replacement, 20,000 draws) within ±10% of it.
# Usage: python3 legacy-sync-30-subsample.py RUN_DIR [k ...]
import json
import random
import statistics as st
import sys

run = sys.argv[1]
ks = [int(a) for a in sys.argv[2:]] or [3, 9, 15]
loads = {}
seen = set()
for line in open(run + '/results.jsonl'):
    r = json.loads(line)
    if r['type'] not in ('point', 'sync_probe'):
        continue
    p = r['point']
    if p['dataplane'] != 'iptables-legacy' or not p.get('sync_full_s'):
        continue
    key = (r['type'], p['services'], p['repetition'])
    if key in seen:  # one load per repetition, whatever the positions
        continue
    seen.add(key)
    loads.setdefault((p['services'], r['type']), []).append(p['sync_full_s'])

rng = random.Random(1)
print('| services | loads | median s | min-max s | CV | ' + ' | '.join('median of %d within ±10%%' % k for k in ks) + ' |')
print('| --: | --: | --: | --- | --: | ' + ' | '.join('--:' for _ in ks) + ' |')
for (n, kind), xs in sorted(loads.items()):
    if n < 5000:
        continue
    med = st.median(xs)
    cv = st.stdev(xs) / st.mean(xs)
    shares = []
    for k in ks:
        if k > len(xs):
            shares.append('—')
            continue
        hits = sum(abs(st.median(rng.sample(xs, k)) / med - 1) <= 0.10 for _ in range(20000))
        shares.append('%.0f%%' % (100 * hits / 20000))
    label = '%d%s' % (n, ' (probe)' if kind == 'sync_probe' else '')
    print('| %s | %d | %.2f | %.2f-%.2f | %.2f | %s |' % (label, len(xs), med, min(xs), max(xs), cv, ' | '.join(shares)))
