package labtest

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// DualStackService is demo/web: a one-port ClusterIP Service of both
// families (10.96.0.1 and fd00:96::1) with one ready endpoint of each, for
// tests of what each family's proxier syncs.
func DualStackService() model.Service {
	return model.Service{Namespace: "demo", Name: "web", Type: model.ClusterIP,
		ClusterIP: netip.MustParseAddr("10.96.0.1"), SecondaryClusterIP: netip.MustParseAddr("fd00:96::1"),
		Ports:     []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}},
		Endpoints: []model.Endpoint{ReadyEndpoint("10.244.0.1"), ReadyEndpoint("fd00:244::1")}}
}

// ReadyEndpoint is a ready, serving endpoint at addr on node-1.
func ReadyEndpoint(addr string) model.Endpoint {
	return model.Endpoint{IP: netip.MustParseAddr(addr), Node: "node-1", Ready: true, Serving: true}
}
