package ipvs

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// Fixtures follow kube-proxy's test data: ns3/svc3 at 172.30.0.43:80 with
// endpoints 10.0.3.2 and 10.0.3.3, cluster CIDR 10.0.0.0/8, mark bit 14.

func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

func endpoints(node string, ips ...string) []model.Endpoint {
	out := make([]model.Endpoint, len(ips))
	for i, s := range ips {
		out[i] = model.Endpoint{IP: ip(s), Ready: true, Node: node}
	}
	return out
}

func p80(proto model.Protocol) model.Port {
	return model.Port{Name: "p80", Protocol: proto, Port: 80, TargetPort: 80}
}

func testModel(services ...model.Service) *model.Model {
	return &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice(services)}
}

// svc3 is kube-proxy's two-endpoint example service.
func svc3() model.Service {
	return model.Service{
		Namespace: "ns3", Name: "svc3", Type: model.ClusterIP, ClusterIP: ip("172.30.0.43"),
		Ports:     []model.Port{p80(model.TCP)},
		Endpoints: endpoints("node-1", "10.0.3.3", "10.0.3.2"),
	}
}

// svc6 has no endpoints.
func svc6() model.Service {
	return model.Service{
		Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: ip("172.30.0.46"),
		Ports: []model.Port{p80(model.TCP)},
	}
}

// svcAffinity has ClientIP session affinity with the default timeout.
func svcAffinity() model.Service {
	s := svc3()
	s.Namespace, s.Name, s.ClusterIP = "ns7", "svc7", ip("172.30.0.47")
	s.Affinity = model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout}
	return s
}

// svcNodePort is a NodePort service with a TCP and a UDP port, one local
// and one remote endpoint.
func svcNodePort() model.Service {
	tcp, udp := p80(model.TCP), model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 3053}
	tcp.NodePort = 3001
	return model.Service{
		Namespace: "ns2", Name: "svc2", Type: model.NodePort, ClusterIP: ip("172.30.0.42"),
		Ports:     []model.Port{tcp, udp},
		Endpoints: append(endpoints("node-1", "10.180.0.2"), endpoints("node-2", "10.180.1.2")...),
	}
}

// svcSCTPNodePort is a NodePort service on SCTP, whose node ports live in
// a hash:ip,port set keyed by node IP.
func svcSCTPNodePort() model.Service {
	p := model.Port{Name: "p9", Protocol: model.SCTP, Port: 9, TargetPort: 9, NodePort: 3009}
	return model.Service{
		Namespace: "ns9", Name: "svc9", Type: model.NodePort, ClusterIP: ip("172.30.0.49"),
		Ports: []model.Port{p}, Endpoints: endpoints("node-1", "10.180.0.9"),
	}
}

// nodeIPs are the node addresses NodePort fixtures listen on.
var nodeIPs = []netip.Addr{ip("192.168.0.2"), ip("192.168.0.3")}
