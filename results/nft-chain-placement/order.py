"""How one load's chains lie, from their addresses (one hexadecimal address
a line, in allocation order: the list's order): how many 4 KiB pages they
span, how often the next chain is on the same page, and how far apart.
usage: python3 order.py PTRS.txt"""
import sys
ptrs = [int(l, 16) for l in open(sys.argv[1]) if l.strip()]
pages = [p >> 12 for p in ptrs]
same = sum(1 for a, b in zip(pages, pages[1:]) if a == b)
near = sum(1 for a, b in zip(pages, pages[1:]) if abs(a - b) <= 1)
far = sum(1 for a, b in zip(ptrs, ptrs[1:]) if abs(a - b) > 1 << 21)
span = (max(ptrs) - min(ptrs)) / 2**20
print(f"{sys.argv[1]}: {len(ptrs)} chains, {len(set(pages))} pages, span {span:.0f} MiB; consecutive in same page {same/(len(ptrs)-1):.3f}, same or next page {near/(len(ptrs)-1):.3f}, > 2 MiB apart {far/(len(ptrs)-1):.3f}")
