#!/usr/bin/env python3
"""Per load of run-h: the per-CPU allocator's chunks made and freed between
the copies before the full sync and after it (trace-run-h.txt: tracefs
events vmalloc:alloc_vmap_area with stack traces, vmalloc:free_vmap_area_noflush,
and the markers run-h-trace.patch writes), and the kernel memory measured.

A chunk made is a 2,101,248-byte vmalloc area whose stack has
pcpu_create_chunk (its 2 MiB of memory-cgroup object pointers); a chunk
freed is the free of a per-CPU unit area (the top of vmalloc space,
0xffffe8ff...), one per chunk here (one group, 2 units of 1 MiB).
Usage: chunks.py trace-run-h.txt [page bytes of one chunk's bookkeeping]
"""
import sys

trace = sys.argv[1]
per_chunk = int(sys.argv[2]) if len(sys.argv) > 2 else 531 * 4096
cur, rows = None, []
for line in open(trace):
    if 'svl-exp' in line:
        n, dp, services, when = line.split('svl-exp ')[1].split()[:4]
        if when == 'before':
            cur = {'load': n, 'dp': dp, 'n': int(services), 'made': 0, 'freed': 0, 'pending': False}
        elif when.startswith('afterfull') and cur:
            cur['kmem'] = int(when.rsplit('-', 1)[1])
            rows.append(cur)
            cur = None
        continue
    if cur is None:
        continue
    if 'alloc_vmap_area:' in line:
        cur['pending'] = 'size=2101248 ' in line
    elif line.startswith(' => pcpu_create_chunk') and cur['pending']:
        cur['made'] += 1
        cur['pending'] = False
    elif 'free_vmap_area_noflush' in line and 'va_start=0xffffe8ff' in line:
        cur['freed'] += 1

print('load dataplane services kernel_mem_MB chunks_made chunks_freed net less_net_chunks_MB')
for r in rows:
    if r['dp'] != 'iptables-legacy' or r['n'] < 20000:
        continue
    net = r['made'] - r['freed']
    less = (r['kmem'] - net * per_chunk) / 1e6 if r['kmem'] else float('nan')
    print(f"{r['load']} {r['dp']} {r['n']} {r['kmem']/1e6:.2f} {r['made']} {r['freed']} {net} {less:.2f}")
