package migrate

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

var (
	ip  = netip.MustParseAddr
	pfx = netip.MustParsePrefix
)

func ep(addr, node string, ready, serving bool) model.Endpoint {
	return model.Endpoint{IP: ip(addr), Node: node, Ready: ready, Serving: serving, Terminating: !ready}
}

func features() *model.Model {
	port := model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}
	svc := func(name, cip string, typ model.ServiceType, nodePort int, eps ...model.Endpoint) model.Service {
		p := port
		p.NodePort = nodePort
		return model.Service{Namespace: "demo", Name: name, Type: typ, ClusterIP: ip(cip), Ports: []model.Port{p}, Endpoints: eps}
	}
	local, remote := ep("10.244.0.1", "node-1", true, true), ep("10.244.1.1", "node-2", true, true)
	cluster := svc("cluster", "10.96.0.1", model.ClusterIP, 0, local, remote)
	etpLocal := svc("etp-local", "10.96.0.2", model.NodePort, 30002, local, remote)
	etpLocal.ExternalPolicyLocal = true
	etpRemote := svc("etp-remote", "10.96.0.3", model.NodePort, 30003, remote)
	etpRemote.ExternalPolicyLocal = true
	lb := svc("lb", "10.96.0.4", model.LoadBalancer, 30004, local, remote)
	lb.LoadBalancerIPs, lb.LoadBalancerSourceRanges = []netip.Addr{ip("192.0.2.4")}, []netip.Prefix{pfx("203.0.113.0/24")}
	lb.ExternalIPs = []netip.Addr{ip("192.0.2.44")}
	itpLocal := svc("itp-local", "10.96.0.5", model.ClusterIP, 0, local, remote)
	itpLocal.InternalPolicyLocal = true
	affinity := svc("affinity", "10.96.0.7", model.NodePort, 30007, local, remote)
	affinity.Affinity = model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout}
	none := svc("none", "10.96.0.8", model.NodePort, 30008)
	c := model.DefaultCluster()
	c.ClusterCIDR = pfx("10.244.0.0/16")
	c.NodeIP = ip("192.168.99.1")
	return &model.Model{Cluster: c, Services: model.Slice{cluster, etpLocal, etpRemote, lb, itpLocal, affinity, none}}
}

func TestScratch(t *testing.T) {
	pairs := [][2]string{{"iptables", "nftables"}, {"ipvs", "nftables"}, {"nftables@1.35", "nftables@1.37"}, {"iptables", "ipvs"}}
	for _, p := range pairs {
		a, _ := ParseSide(p[0])
		b, _ := ParseSide(p[1])
		r, err := Compare(Input{Model: features(), From: a, To: b, Node: Node{Other: []netip.Addr{ip("192.168.100.1")}}, Rules: NativeRules})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("=== %s → %s: %d paths, %d diffs\n", a, b, r.Paths, len(r.Differences))
		for _, c := range r.Classes {
			fmt.Printf("- %+v [%d] %v\n", c.Cause, c.Count, c.Services)
			for _, g := range c.Groups {
				fmt.Printf("    %s: %s: %s | %s\n", g.Kind, g.Change, g.Example.From, g.Example.To)
			}
		}
	}
}
