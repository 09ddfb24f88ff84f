"""Copy a run directory without its lookup probes: the sync probes' uniform-position
traffic (position, latencies, connections, histogram) is removed from results.jsonl and
summary.json, so svclab plan check fits the model as it was before lookup probes.

python3 lookup-strip.py RUN_DIR COPY_DIR   (COPY_DIR must not exist)
"""
import json,sys,os,shutil
src,dst=sys.argv[1],sys.argv[2]
shutil.copytree(src,dst)
keys=['p50_us','p90_us','p99_us','p999_us','mean_us','connections']
def strip(p):
    p['position']=''
    for k in keys:
        if k in p: p[k]=0
    p.pop('histogram',None)
with open(os.path.join(dst,'results.jsonl'),'w') as out:
    for line in open(os.path.join(src,'results.jsonl')):
        r=json.loads(line)
        if r.get('type')=='sync_probe': strip(r['point'])
        out.write(json.dumps(r)+'\n')
sp=os.path.join(dst,'summary.json')
if os.path.exists(sp):
    s=json.load(open(sp))
    for p in s.get('sync_probes') or []: strip(p)
    json.dump(s,open(sp,'w'),indent=1)
