"""Median incremental sync by how many pages the load's chains span
(join.py's table on stdin): the loads grouped by chains per page."""
import statistics
import sys
rows = [l.split() for l in sys.stdin if l[0].isdigit()]
groups = [("packed, 20 or more chains a page", lambda c: c >= 20), ("12-20 a page", lambda c: 12 <= c < 20), ("under 12 a page", lambda c: c < 12)]
print("chains a page\tloads\tincremental sync, median ms\tmin-max ms\tloads over 500 ms")
for name, keep in groups:
    inc = [float(r[3]) for r in rows if keep(float(r[1]))]
    if inc:
        print(f"{name}\t{len(inc)}\t{statistics.median(inc):.0f}\t{min(inc):.0f}-{max(inc):.0f}\t{sum(1 for v in inc if v > 500)}")
