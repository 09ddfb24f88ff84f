package route

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

var (
	ip   = netip.MustParseAddr
	pfx  = netip.MustParsePrefix
	node = ip("192.168.99.1")
	// The client pod, the external client inside and outside the source
	// ranges, and their IPv6 addresses.
	pod, inside, outside = ip("10.244.255.1"), ip("203.0.113.10"), ip("198.51.100.10")
	pod6, inside6        = ip("fd00:10:244:ffff::2"), ip("2001:db8:1::10")
	node6                = ip("fd00:99::1")
)

func ep(addr, node string, ready, serving bool) model.Endpoint {
	return model.Endpoint{IP: ip(addr), Node: node, Ready: ready, Serving: serving, Terminating: !ready}
}

// features is one service per Service feature, each with endpoints on the
// rendered node (node-1) and another; the tests route to them.
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
	itpRemote := svc("itp-remote", "10.96.0.6", model.ClusterIP, 0, remote)
	itpRemote.InternalPolicyLocal = true
	affinity := svc("affinity", "10.96.0.7", model.ClusterIP, 0, local, remote)
	affinity.Affinity = model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout}
	none := svc("none", "10.96.0.8", model.NodePort, 30008)
	draining := svc("draining", "10.96.0.9", model.ClusterIP, 0, ep("10.244.0.2", "node-1", false, true), ep("10.244.1.2", "node-2", false, false))
	terminatingLocal := svc("terminating-local", "10.96.0.10", model.NodePort, 30010, ep("10.244.0.3", "node-1", false, true), remote)
	terminatingLocal.ExternalPolicyLocal = true
	dual := svc("dual", "10.96.0.11", model.NodePort, 30011, local, ep("fd00:10:244::1", "node-1", true, true))
	dual.SecondaryClusterIP = ip("fd00:96::11")
	hairpin := svc("hairpin", "10.96.0.12", model.ClusterIP, 0, local)
	c := model.DefaultCluster()
	c.ClusterCIDR, c.ClusterCIDRv6 = pfx("10.244.0.0/16"), pfx("fd00:10:244::/48")
	c.ServiceCIDRv6 = pfx("fd00:96::/108")
	c.NodeIP, c.NodeIPv6 = node, node6
	return &model.Model{Cluster: c, Services: model.Slice{cluster, etpLocal, etpRemote, lb, itpLocal, itpRemote, affinity, none, draining, terminatingLocal, dual, hairpin}}
}

// show formats an answer: each endpoint and the source it sees, or
// "dropped".
func show(a Answer) string {
	if a.Dropped {
		return "dropped"
	}
	var parts []string
	for _, e := range a.Endpoints {
		parts = append(parts, fmt.Sprintf("%s<-%s", e.Addr, e.Seen))
	}
	return strings.Join(parts, " ")
}

func TestRouteServiceFeatures(t *testing.T) {
	const (
		both     = "10.244.0.1:8080<-%[1]s 10.244.1.1:8080<-%[1]s"
		localEP  = "10.244.0.1:8080<-%[1]s"
		remoteEP = "10.244.1.1:8080<-%[1]s"
	)
	tests := []struct {
		name   string
		dst    string
		from   Origin
		src    netip.Addr
		want   string          // every mode, %[1]s the source seen
		seen   netip.Addr      // what the endpoints see
		byMode map[Mode]string // where a mode differs, already formatted
	}{
		{"pod to ClusterIP keeps its address", "10.96.0.1:80", FromPod, pod, both, pod, nil},
		{"node to ClusterIP is masqueraded", "10.96.0.1:80", FromNode, netip.Addr{}, both, node, nil},
		{"external to ClusterIP is masqueraded (outside clusterCIDR)", "10.96.0.1:80", FromPod, inside, both, node, nil},
		{"NodePort, Cluster policy: masqueraded", "192.168.99.1:30004", FromPod, outside, both, node, nil},
		{"pod to NodePort, Cluster policy: masqueraded too", "192.168.99.1:30004", FromPod, pod, both, node, nil},
		{"NodePort, Local: the local endpoint, the client's address", "192.168.99.1:30002", FromPod, inside, localEP, inside, nil},
		{"pod to NodePort, Local: every endpoint in the rule chains", "192.168.99.1:30002", FromPod, pod, both, pod,
			map[Mode]string{IPVS: fmt.Sprintf(localEP, pod)}},
		{"NodePort, Local, no local endpoint: dropped in the rule chains", "192.168.99.1:30003", FromPod, inside, "dropped", netip.Addr{},
			map[Mode]string{IPVS: fmt.Sprintf(remoteEP, inside)}},
		{"LB from inside the source ranges", "192.0.2.4:80", FromPod, inside, both, node, nil},
		{"LB from outside the source ranges: dropped", "192.0.2.4:80", FromPod, outside, "dropped", netip.Addr{}, nil},
		{"node to LB, its address outside the ranges: dropped", "192.0.2.4:80", FromNode, netip.Addr{}, "dropped", netip.Addr{}, nil},
		{"externalIP ignores the source ranges", "192.0.2.44:80", FromPod, outside, both, node, nil},
		{"ClusterIP, internal Local: the local endpoint", "10.96.0.5:80", FromPod, pod, localEP, pod, nil},
		{"ClusterIP, internal Local, no local endpoint: dropped", "10.96.0.6:80", FromPod, pod, "dropped", netip.Addr{}, nil},
		{"ClientIP affinity: a first connection may reach any", "10.96.0.7:80", FromPod, pod, both, pod, nil},
		{"no endpoints: rejected", "10.96.0.8:80", FromPod, pod, "dropped", netip.Addr{}, nil},
		{"no endpoints, NodePort: rejected", "192.168.99.1:30008", FromPod, inside, "dropped", netip.Addr{}, nil},
		{"all terminating: the serving ones", "10.96.0.9:80", FromPod, pod, "10.244.0.2:8080<-%[1]s", pod, nil},
		{"Local, only a terminating local endpoint: it (CategorizeEndpoints)", "192.168.99.1:30010", FromPod, inside, "10.244.0.3:8080<-%[1]s", inside, nil},
		{"dual-stack: the IPv6 ClusterIP reaches the IPv6 endpoint", "[fd00:96::11]:80", FromPod, pod6, "[fd00:10:244::1]:8080<-%[1]s", pod6, nil},
		{"dual-stack: the IPv6 NodePort, masqueraded to the node's IPv6", "[fd00:99::1]:30011", FromPod, inside6, "[fd00:10:244::1]:8080<-%[1]s", node6, nil},
		{"hairpin: a pod reaching itself sees the node", "10.96.0.12:80", FromPod, ip("10.244.0.1"), localEP, node, nil},
		{"an address no service owns: nowhere", "10.96.0.99:80", FromPod, pod, "dropped", netip.Addr{}, nil},
	}
	m := features()
	for _, mode := range Modes() {
		o, err := New(m, Config{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range tests {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				a, err := o.Route(Query{Dst: netip.MustParseAddrPort(tc.dst), From: tc.from, Src: tc.src})
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want
				if strings.Contains(want, "%") {
					want = fmt.Sprintf(want, tc.seen)
				}
				if w, ok := tc.byMode[mode]; ok {
					want = w
				}
				if got := show(a); got != want {
					t.Errorf("got %s (verdict %s), want %s", got, a.Verdict, want)
				}
			})
		}
	}
}
