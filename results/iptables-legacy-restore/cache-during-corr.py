import re,sys,statistics as st
# Each restore's user time against the 6 MB chase's samples during it
# (cache-during-samples.txt, -loads.txt, written by cache-during.sh).
samples=[tuple(map(float,l.split())) for l in open('cache-during-samples.txt') if len(l.split())==2]
rows=[]
for l in open('cache-during-loads.txt'):
    f=l.split(); s,e=float(f[0]),float(f[1])
    wall=float(re.search(r'wall=([\d.]+)',l).group(1)); user=float(re.search(r'volcs=([\d.]+)',l).group(1))
    during=[v for t,v in samples if s<=t<=e]
    before=[v for t,v in samples if s-2<=t<s]
    rows.append((user,wall,st.mean(during),st.median(during),len(during),st.mean(before) if before else float('nan')))
def corr(x,y):
    mx,my=st.mean(x),st.mean(y)
    return sum((a-mx)*(b-my) for a,b in zip(x,y))/ (sum((a-mx)**2 for a in x)*sum((b-my)**2 for b in y))**.5
for r in rows: print('user %.2f wall %.2f during mean %.1f median %.1f n %d before %.1f'%r)
print('corr user~during mean %.2f, median %.2f, before %.2f'%(corr([r[0] for r in rows],[r[2] for r in rows]),corr([r[0] for r in rows],[r[3] for r in rows]),corr([r[0] for r in rows],[r[5] for r in rows])))
quiet=[v for t,v in samples if not any(float(l.split()[0])<=t<=float(l.split()[1]) for l in open('cache-during-loads.txt'))]
print('samples outside loads: n %d median %.1f min %.1f max %.1f'%(len(quiet),st.median(quiet),min(quiet),max(quiet)))
