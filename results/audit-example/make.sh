#!/bin/sh
# Records results/audit-example: a node kube-proxy v1.37 (nftables mode,
# its own code) programmed with before.yaml, in a scratch network
# namespace, then tampered with by hand (ns1/svc1's service-ips element
# deleted); its `nft list ruleset` is audited against cluster.yaml, where
# ns8/old is deleted and ns7/web lost an endpoint. Run as root from the
# repository root with the drivers built (make kube-proxy, or
# SVCLAB_KUBE_PROXY_DRIVERS):
#   sudo sh results/audit-example/make.sh
set -eu
dir=results/audit-example
ns=audit-example-$$
svclab=${SVCLAB:-./bin/svclab}
ip netns add "$ns"
trap 'ip netns delete "$ns"' EXIT
$svclab render --mode nftables --scenario $dir/before.yaml --engine kube-proxy --kube-proxy-version 1.37 |
	ip netns exec "$ns" nft -f -
ip netns exec "$ns" nft delete element ip kube-proxy service-ips '{ 172.30.0.41 . tcp . 80 }'
ip netns exec "$ns" nft list ruleset > $dir/node.nft
for f in text markdown json; do
	ext=$f; [ $f = text ] && ext=txt; [ $f = markdown ] && ext=md
	$svclab audit --objects $dir/cluster.yaml --dump $dir/node.nft --kube-proxy-version 1.37 --format $f > $dir/audit.$ext || test $? = 1
done
