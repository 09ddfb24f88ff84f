package driver

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// twoEndpoints is a NodePort Service with one endpoint on this node and
// one on another.
func twoEndpoints() *model.Model {
	return &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{{
		Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30003}},
		Endpoints: []model.Endpoint{
			{IP: netip.MustParseAddr("10.0.3.2"), Ready: true, Serving: true, Node: "node-1"},
			{IP: netip.MustParseAddr("10.0.3.3"), Ready: true, Serving: true, Node: "node-2"},
		},
	}}}
}
