package conformance

import (
	"fmt"
	"net/netip"
	"strconv"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestNFTablesFeatures renders one hand-made cluster per Service feature
// and feature combination with kube-proxy's nftables proxier and with the
// native renderer, for each family (every service is dual-stack; the
// IPv6 proxier writes the ip6 table), and compares the transactions after
// the canonical sort and the state they leave. Cases with later states
// compare the partial syncs too.
func TestNFTablesFeatures(t *testing.T) {
	for _, tc := range nftFeatureCases() {
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				raw := make([]*model.Model, len(tc.states))
				native := make([]*model.Model, len(tc.states))
				for i, s := range tc.states {
					raw[i] = &model.Model{Cluster: tc.cluster, Services: s, Family: f}
					p := model.ForFamily(*raw[i], f)
					native[i] = &p
				}
				req, err := kube.NewRequest(kube.ModeNFTables, render.Config{Flags: tc.flags}, raw[0], raw[1:]...)
				if err != nil {
					t.Fatal(err)
				}
				kp, err := renderRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				d, err := compareNFTables(native, tc.flags, kp)
				if err != nil {
					t.Fatal(err)
				}
				if d != "" {
					t.Errorf("%s\n%s", nftDescribeModels(raw), d)
				}
			})
		}
	}
}

// nftFeatureCase is one cluster: its settings, kube-proxy's flags and its
// successive states.
type nftFeatureCase struct {
	name    string
	cluster model.Cluster
	flags   render.Flags
	states  []model.Slice
}

func nftDescribeModels(ms []*model.Model) string {
	var out string
	for i, m := range ms {
		out += fmt.Sprintf("state %d:\n", i)
		for j := 0; j < m.Services.Len(); j++ {
			out += "  " + describeService(m.Services.At(j)) + "\n"
		}
	}
	return out
}

// nftFeatureCluster is kube-proxy's test node in both families: node IPs
// 192.168.0.2 and 2001:db8::1, pod CIDRs 10.0.0.0/8 and fd00:10::/64,
// service CIDRs 172.30.0.0/16 and fd00:172:30::/112, zone "zone-a".
func nftFeatureCluster() model.Cluster {
	c := model.DefaultCluster()
	c.NodeName, c.NodeZone = "test-node", "zone-a"
	c.ServiceCIDR = netip.MustParsePrefix("172.30.0.0/16")
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:10::/64")
	c.ServiceCIDRv6 = netip.MustParsePrefix("fd00:172:30::/112")
	c.NodeIP, c.NodeIPv6 = netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("2001:db8::1")
	return c
}

// dual returns the IPv4 and IPv6 forms of host n of an address pair,
// e.g. nftDual("10.180.0.", "fd00:10:180::", 3).
func nftDual(v4, v6 string, n int) (netip.Addr, netip.Addr) {
	return netip.MustParseAddr(v4 + strconv.Itoa(n)), netip.MustParseAddr(v6 + strconv.FormatInt(int64(n), 16))
}

// nftSvcOpt changes a feature service.
type nftSvcOpt func(*model.Service)

// nftSvc is dual-stack service n ("ns<n>/svc<n>", ClusterIPs
// 172.30.0.n and fd00:172:30::n, port p80 TCP 80 → 8080) with opts.
func nftSvc(n int, opts ...nftSvcOpt) model.Service {
	v4, v6 := nftDual("172.30.0.", "fd00:172:30::", n)
	s := model.Service{
		Namespace: "ns" + strconv.Itoa(n), Name: "svc" + strconv.Itoa(n), Type: model.ClusterIP,
		ClusterIP: v4, SecondaryClusterIP: v6,
		Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 8080}},
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// ep adds endpoint host h (10.180.0.h and fd00:10:180::h) on node with
// conditions: "r" ready, "s" serving, "t" terminating (e.g. "st").
func nftEP(h int, node, conds string, hints ...func(*model.Endpoint)) nftSvcOpt {
	return func(s *model.Service) {
		for _, a := range nftPair(nftDual("10.180.0.", "fd00:10:180::", h)) {
			e := model.Endpoint{IP: a, Node: node}
			for _, c := range conds {
				switch c {
				case 'r':
					e.Ready, e.Serving = true, true
				case 's':
					e.Serving = true
				case 't':
					e.Terminating = true
				}
			}
			for _, h := range hints {
				h(&e)
			}
			s.Endpoints = append(s.Endpoints, e)
		}
	}
}

func nftPair(a, b netip.Addr) []netip.Addr { return []netip.Addr{a, b} }

func nftZoneHints(z ...string) func(*model.Endpoint) {
	return func(e *model.Endpoint) { e.ZoneHints = z }
}
func nftNodeHints(n ...string) func(*model.Endpoint) {
	return func(e *model.Endpoint) { e.NodeHints = n }
}

func nftType(t model.ServiceType, nodePort int) nftSvcOpt {
	return func(s *model.Service) {
		s.Type = t
		for i := range s.Ports {
			if nodePort != 0 {
				s.Ports[i].NodePort = nodePort + i
			}
		}
	}
}

// nftLBIP adds load-balancer ingress IPs 1.2.3.h / 5555::h.
func nftLBIP(h int) nftSvcOpt {
	return func(s *model.Service) {
		s.LoadBalancerIPs = append(s.LoadBalancerIPs, nftPair(nftDual("1.2.3.", "5555::", h))...)
	}
}

// nftExtIP adds external IPs 192.168.99.h / 2001:db8:99::h.
func nftExtIP(h int) nftSvcOpt {
	return func(s *model.Service) {
		s.ExternalIPs = append(s.ExternalIPs, nftPair(nftDual("192.168.99.", "2001:db8:99::", h))...)
	}
}

func nftSourceRanges(cidrs ...string) nftSvcOpt {
	return func(s *model.Service) {
		for _, c := range cidrs {
			s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, netip.MustParsePrefix(c))
		}
	}
}

func nftETPLocal(hc int) nftSvcOpt {
	return func(s *model.Service) { s.ExternalPolicyLocal, s.HealthCheckNodePort = true, hc }
}

func nftITPLocal(s *model.Service) { s.InternalPolicyLocal = true }

func nftAffinity(timeout int) nftSvcOpt {
	return func(s *model.Service) { s.Affinity = model.Affinity{ClientIP: true, Timeout: timeout} }
}

func nftPorts(ps ...model.Port) nftSvcOpt { return func(s *model.Service) { s.Ports = ps } }

// one is a case of a single state.
func nftOne(name string, c model.Cluster, svcs ...model.Service) nftFeatureCase {
	return nftFeatureCase{name: name, cluster: c, states: []model.Slice{svcs}}
}
