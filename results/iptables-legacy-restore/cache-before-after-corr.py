# Correlation of each restore's user time with the pointer chase's ns per
# load at each size, before the restore, after it and their mean
# (cache-before-after.txt, written by cache-before-after.sh).
import re
import statistics as st
import sys

path = sys.argv[1] if len(sys.argv) > 1 else 'cache-before-after.txt'
rows = []
for line in open(path):
    parts = line.split('|')
    def chase(s):
        return {k: float(v) for k, v in re.findall(r'(\d+):([\d.]+)', s)}
    user = float(re.search(r'volcs=([\d.]+)', parts[2]).group(1))
    rows.append((user, chase(parts[1]), chase(parts[3])))

def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    num = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return num / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** .5

users = [r[0] for r in rows]
for size in ['4', '8', '12', '16', '24', '64']:
    before = [r[1][size] for r in rows]
    after = [r[2][size] for r in rows]
    mean = [(a + b) / 2 for a, b in zip(before, after)]
    print('%s MB: corr(user, chase) mean %.2f, before %.2f, after %.2f' % (size, corr(users, mean), corr(users, before), corr(users, after)))
