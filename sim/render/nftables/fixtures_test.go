package nftables

import (
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// referenceCluster is kube-proxy's test fixture: pod CIDR 10.0.0.0/8,
// service CIDR 172.30.0.0/16, mark bit 14.
func referenceCluster() model.Cluster {
	return model.Cluster{
		ClusterCIDR:   netip.MustParsePrefix("10.0.0.0/8"),
		ServiceCIDR:   netip.MustParsePrefix("172.30.0.0/16"),
		MasqueradeBit: 14,
		NodeName:      "test-node",
	}
}

// endpoints makes ready endpoints from addresses.
func endpoints(ips ...string) []model.Endpoint {
	var out []model.Endpoint
	for _, ip := range ips {
		out = append(out, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Node: "test-node"})
	}
	return out
}

// p80 is the fixtures' service port "p80", TCP 80 → 80.
var p80 = model.Port{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}

// twoEndpoints is the reference example: ns3/svc3 with two endpoints.
func twoEndpoints() model.Service {
	return model.Service{
		Namespace: "ns3", Name: "svc3", Type: model.ClusterIP,
		ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Ports:     []model.Port{p80},
		Endpoints: endpoints("10.0.3.2", "10.0.3.3"),
	}
}

// shapes are the service shapes of the golden and count tests.
func shapes() map[string]model.Service {
	nodePort := p80
	nodePort.NodePort = 3003
	return map[string]model.Service{
		"two-endpoints": twoEndpoints(),
		"no-endpoints": {
			Namespace: "ns6", Name: "svc6", Type: model.ClusterIP,
			ClusterIP: netip.MustParseAddr("172.30.0.46"), Ports: []model.Port{p80},
		},
		"affinity": {
			Namespace: "ns5", Name: "svc5", Type: model.ClusterIP,
			ClusterIP: netip.MustParseAddr("172.30.0.45"), Ports: []model.Port{p80},
			Affinity:  model.Affinity{ClientIP: true, Timeout: 10800},
			Endpoints: endpoints("10.180.0.3"),
		},
		"nodeport": {
			Namespace: "ns3", Name: "svc3", Type: model.NodePort,
			ClusterIP: netip.MustParseAddr("172.30.0.43"), Ports: []model.Port{nodePort},
			Endpoints: endpoints("10.180.0.3"),
		},
		"nodeport-no-endpoints": {
			Namespace: "ns7", Name: "svc7", Type: model.NodePort,
			ClusterIP: netip.MustParseAddr("172.30.0.47"), Ports: []model.Port{nodePort},
		},
		"three-endpoints": {
			Namespace: "ns4", Name: "svc4", Type: model.ClusterIP,
			ClusterIP: netip.MustParseAddr("172.30.0.44"), Ports: []model.Port{p80},
			Endpoints: endpoints("10.180.0.5", "10.180.0.4", "10.180.0.40"),
		},
	}
}

// modelOf wraps services in a model with the reference cluster.
func modelOf(svcs ...model.Service) *model.Model {
	return &model.Model{Cluster: referenceCluster(), Services: model.Slice(svcs)}
}

// stringsBuilder collects output and counts substrings in it.
type stringsBuilder struct{ strings.Builder }

func (b *stringsBuilder) count(sub string) int { return strings.Count(b.String(), sub) }
