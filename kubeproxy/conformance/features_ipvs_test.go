package conformance

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipvs "github.com/svclab/svclab/sim/render/ipvs"
)

// TestIPVSFeatures renders one hand-made cluster per Service feature and
// feature combination, for each family, with kube-proxy's IPVS proxier and
// with the native renderer, and compares the iptables payload, the IPVS
// table and the ipsets after the canonical sorts.
func TestIPVSFeatures(t *testing.T) {
	for _, tc := range featureCases() {
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				m := tc.model()
				m.Family = f
				if d := diffIPVSModel(t, &m.Model, m.Flags); d != "" {
					t.Errorf("%s %s: native IPVS mode differs from kube-proxy %s:\n%s", tc.name, f, driver.Version(), d)
				}
			})
		}
	}
}

// diffIPVSModel renders m (the whole model, m.Family selecting the
// proxier) with kube-proxy and its projection natively, both with flags;
// "" when equal.
func diffIPVSModel(t *testing.T, m *model.Model, flags render.Flags) string {
	t.Helper()
	req, err := kube.NewRequest(kube.ModeIPVS, render.Config{Flags: flags}, m)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := renderRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	p := model.ForFamily(*m, m.Family)
	d, err := compareIPVSWith([]*model.Model{&p}, kp, featureIPVSOptions(flags))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// featureIPVSOptions are the native options matching the driver with
// flags: rr, --random-fully; the node's addresses come from the model.
func featureIPVSOptions(flags render.Flags) rendipvs.Options {
	return rendipvs.OptionsFor(render.Config{Version: nativeVersion(), Flags: flags})
}

// featureCase is one row: a name and a cluster.
type featureCase struct {
	name  string
	model func() featureModel
}

// featureModel is a row's cluster and kube-proxy's flags.
type featureModel struct {
	model.Model
	Flags render.Flags
}

var (
	a      = netip.MustParseAddr
	prefix = netip.MustParsePrefix
)

// featureCluster is a dual-stack node-1 in zone-a with addresses of both
// families.
func featureCluster() model.Cluster {
	c := model.DefaultCluster()
	c.NodeName, c.NodeZone = "node-1", "zone-a"
	c.NodeIP, c.NodeIPv6 = a("192.168.0.2"), a("fd00:192:168::2")
	c.ClusterCIDR, c.ClusterCIDRv6 = prefix("10.0.0.0/8"), prefix("fd00:10::/64")
	c.ServiceCIDR, c.ServiceCIDRv6 = prefix("172.30.0.0/16"), prefix("fd00:172:30::/112")
	return c
}

// dual is a dual-stack service n (ClusterIPs 172.30.0.n and
// fd00:172:30::n) of type typ with one TCP port 80 → 8080 (node port
// 30000+n when typ allocates one).
func dual(n int, typ model.ServiceType) model.Service {
	s := model.Service{
		Namespace: "ns", Name: "svc" + itoa(n), Type: typ,
		ClusterIP:          a("172.30.0." + itoa(n)),
		SecondaryClusterIP: a("fd00:172:30::" + itoa(n)),
		Ports:              []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}},
	}
	if typ == model.NodePort || typ == model.LoadBalancer {
		s.Ports[0].NodePort = 30000 + n
	}
	return s
}

// eps are endpoints i (10.180.n.i and fd00:180::n:i) on the given nodes,
// ready.
func eps(n int, nodes ...string) []model.Endpoint {
	var out []model.Endpoint
	for i, node := range nodes {
		for _, ip := range []string{"10.180." + itoa(n) + "." + itoa(i+1), "fd00:180::" + itoa(n) + ":" + itoa(i+1)} {
			out = append(out, model.Endpoint{IP: a(ip), Ready: true, Serving: true, Node: node})
		}
	}
	return out
}

// with returns a one-service model built by edit from dual(n, typ) with
// endpoints on node-1 and node-2.
func with(n int, typ model.ServiceType, edit func(*model.Service)) func() featureModel {
	return func() featureModel {
		s := dual(n, typ)
		s.Endpoints = eps(n, "node-1", "node-2")
		if edit != nil {
			edit(&s)
		}
		return featureModel{Model: model.Model{Cluster: featureCluster(), Services: model.Slice{s}}}
	}
}

// onCluster returns mk's model with edit applied to its cluster.
func onCluster(mk func() featureModel, edit func(*model.Cluster)) func() featureModel {
	return func() featureModel {
		m := mk()
		edit(&m.Cluster)
		return m
	}
}

// withFlags returns mk's model with kube-proxy's flags.
func withFlags(mk func() featureModel, flags render.Flags) func() featureModel {
	return func() featureModel {
		m := mk()
		m.Flags = flags
		return m
	}
}

func featureCases() []featureCase {
	return append(basicCases(), append(policyCases(), topologyCases()...)...)
}

// TestIPVSFeaturesCanFail: each feature the table covers changes the
// comparison when the native side gets it wrong (a mutated projection),
// so the rows above prove something.
func TestIPVSFeaturesCanFail(t *testing.T) {
	byName := map[string]featureCase{}
	for _, tc := range featureCases() {
		byName[tc.name] = tc
	}
	tests := []struct {
		row    string
		mutate func(*model.Model, *render.Flags)
	}{
		{"external-local", func(m *model.Model, _ *render.Flags) { firstService(m).ExternalPolicyLocal = false }},
		{"internal-local", func(m *model.Model, _ *render.Flags) { firstService(m).InternalPolicyLocal = false }},
		{"source-ranges-without-node", func(m *model.Model, _ *render.Flags) { firstService(m).LoadBalancerSourceRanges = nil }},
		{"source-ranges-with-node", func(m *model.Model, _ *render.Flags) { m.Cluster.NodeIP = a("192.0.2.1") }},
		{"zone-hints", func(m *model.Model, _ *render.Flags) { m.Cluster.NodeZone = "zone-b" }},
		{"terminating-fallback", func(m *model.Model, _ *render.Flags) { firstService(m).Endpoints[0].Serving = false }},
		{"externalip-is-node-ip", func(m *model.Model, _ *render.Flags) { m.Cluster.NodeIP = a("192.0.2.1") }},
		{"nodeport-addresses-miss", func(_ *model.Model, f *render.Flags) { f.NodePortAddresses = nil }},
		{"masquerade-all", func(_ *model.Model, f *render.Flags) { f.MasqueradeAll = false }},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			fm := byName[tt.row].model()
			m, flags := fm.Model, fm.Flags
			req, err := kube.NewRequest(kube.ModeIPVS, render.Config{Flags: flags}, &m)
			if err != nil {
				t.Fatal(err)
			}
			kp, err := renderRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			p := model.ForFamily(m, m.Family)
			var svcs model.Slice
			for i := 0; i < p.Services.Len(); i++ {
				svcs = append(svcs, *p.Services.At(i))
			}
			p.Services = svcs
			tt.mutate(&p, &flags)
			d, err := compareIPVSWith([]*model.Model{&p}, kp, featureIPVSOptions(flags))
			if err != nil {
				t.Fatal(err)
			}
			if d == "" {
				t.Errorf("row %s: a wrong native model compared equal to kube-proxy", tt.row)
			}
		})
	}
}

// firstService is m's first service, editable (m's list is a Slice).
func firstService(m *model.Model) *model.Service { return &m.Services.(model.Slice)[0] }
