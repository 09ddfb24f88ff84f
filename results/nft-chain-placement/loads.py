"""Per process (one rule load), the chains nf_tables_addchain allocated and
how they lie: chains per 4 KiB slab page (32 is a packed kmalloc-cg-128
page), and the walk's page changes. Input: run-ptrs.txt (pid, trace
seconds, pointer per allocation), from the kmem:kmalloc tracepoint."""
import sys
from collections import OrderedDict
loads = OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 3:
        continue
    pid = f[0].rsplit('-', 1)[-1]
    t = float(f[1].rstrip(':'))
    p = int(f[2], 16)
    l = loads.setdefault(pid, {'t': t, 'ptrs': []})
    l['ptrs'].append(p)
minchains = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
print("pid\ttrace_s\tchains\tpages\tchains_per_page\tpage_changes_per_chain")
for pid, l in loads.items():
    ptrs = l['ptrs']
    if len(ptrs) < minchains:
        continue
    pages = [p >> 12 for p in ptrs]
    changes = sum(1 for a, b in zip(pages, pages[1:]) if a != b)
    print(f"{pid}\t{l['t']:.1f}\t{len(ptrs)}\t{len(set(pages))}\t{len(ptrs)/len(set(pages)):.1f}\t{changes/(len(ptrs)-1):.3f}")
