#!/bin/bash
# Writes the payloads the by-hand scripts here load, into /tmp (2026-12-06).
set -e
REPO=$(pwd)
cd /tmp
svclab render --mode nftables --services 8000 --endpoints 2 > p8k.nft
svclab render --mode nftables --services 1000 --endpoints 1 > base1k.nft
svclab render --mode nftables --services 40000 --endpoints 1 > base40k.nft
split -n l/8 -d base40k.nft b40part
svclab render --mode nftables --scenario $REPO/results/plan-mix-check/cluster-500-x20.yaml --family ipv4 --services 9540 > mix4.nft
python3 - <<'P'
import random
def maps(n, chain, off=0, add_chain=True):
    out = [f"add chain ip kube-proxy {chain}\n"] if add_chain else []
    for i in range(n):
        hi, lo = (i+off)//250, (i+off) % 250+1
        out.append(f"add rule ip kube-proxy {chain} meta l4proto tcp dnat ip addr . port to numgen random mod 2 map {{ 0 : 10.250.{hi%250}.{lo} . 8080 , 1 : 10.251.{hi%250}.{lo} . 8080 }}\n")
    return "".join(out)
for c in range(18):  # 18,000 anonymous maps, 1,000 a transaction
    open(f"anon{c}.nft", "w").write(maps(1000, f"build{c}", c*1000))
for c in range(8):  # 8,000 named sets with long (affinity-like) and short names, each named by a rule
    for kind in ("named", "short"):
        out = [f"add chain ip kube-proxy {kind[0]}build{c}\n"]
        for i in range(1000):
            name = f"affinity-{random.randbytes(4).hex().upper()}-synth-{c}/svc-{i}/tcp/http__10.180.{i//250}.{i%250}/8080" if kind == "named" else f"s{c}x{i}"
            out.append(f"add set ip kube-proxy {name} {{ type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }}\n")
            out.append(f"add rule ip kube-proxy {kind[0]}build{c} ip saddr @{name} accept\n")
        open(f"{kind}{c}.nft", "w").write("".join(out))
open("add32.nft", "w").write(maps(32, "probe"))
open("add256.nft", "w").write(maps(256, "probe"))
open("rm.nft", "w").write("flush chain ip kube-proxy probe\ndelete chain ip kube-proxy probe\n")
pad = ["add chain ip kube-proxy pad\n", "add chain ip kube-proxy probe\n"]
for i in range(150000):  # 150,000 rules ahead of the maps in one transaction
    pad.append(f"add rule ip kube-proxy pad ip daddr 10.{i//62500}.{(i//250)%250}.{i%250+1} counter\n")
pad = "".join(pad)
for n in (32, 256):
    open(f"pad{n}.nft", "w").write(pad+maps(n, "probe", add_chain=False))
open("rmpad.nft", "w").write("flush chain ip kube-proxy probe\ndelete chain ip kube-proxy probe\nflush chain ip kube-proxy pad\ndelete chain ip kube-proxy pad\n")
P
