"""Joins each nftables load's chain placement (loads.py's table, from the
kmem:kmalloc trace) with the incremental sync the run measured on it: the
k-th load of C chains is repetition k of the sweep's point or sync probe of
that size (one load of each a repetition, in repetition order).
usage: python3 join.py loads.tsv results.jsonl SERVICES CHAINS"""
import json
import sys

loads_file, results_file, services, chains = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
placement = []
with open(loads_file) as f:
    next(f)
    for line in f:
        pid, t, c, pages, per_page, changes = line.split()
        if int(c) == chains:
            placement.append((float(per_page), int(pages)))
syncs = {}
with open(results_file) as f:
    for line in f:
        r = json.loads(line)
        if r.get('type') not in ('point', 'sync_probe'):
            continue
        p = r['point']
        if p['dataplane'] != 'nftables' or p['services'] != services or not p.get('sync_incremental_s'):
            continue
        syncs.setdefault(p['repetition'], (p['sync_incremental_s'], p.get('sync_incremental_cpu_s', 0), p.get('sync_full_s', 0)))
print("repetition\tchains_per_page\tpages\tincremental_ms\tincremental_cpu_ms\tfull_s")
for rep in sorted(syncs):
    if rep - 1 >= len(placement):
        break
    per_page, pages = placement[rep - 1]
    inc, cpu, full = syncs[rep]
    print(f"{rep}\t{per_page:.1f}\t{pages}\t{inc*1000:.0f}\t{cpu*1000:.0f}\t{full:.2f}")
