package nftables

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// shapesModel has one service of each shape kube-proxy renders: two
// endpoints, none, ClientIP affinity, NodePort, three endpoints.
func shapesModel() *model.Model {
	eps := func(ips ...string) []model.Endpoint {
		var out []model.Endpoint
		for _, ip := range ips {
			out = append(out, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true})
		}
		return out
	}
	p80 := model.Port{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}
	np := p80
	np.NodePort = 3003
	svc := func(ns, name, ip string, port model.Port, e []model.Endpoint) model.Service {
		typ := model.ClusterIP
		if port.NodePort != 0 {
			typ = model.NodePort
		}
		return model.Service{Namespace: ns, Name: name, Type: typ, ClusterIP: netip.MustParseAddr(ip), Ports: []model.Port{port}, Endpoints: e}
	}
	aff := svc("ns5", "svc5", "172.30.0.45", p80, eps("10.180.0.3"))
	aff.Affinity = model.Affinity{ClientIP: true, Timeout: 10800}
	return &model.Model{
		Cluster: model.Cluster{
			ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), ServiceCIDR: netip.MustParsePrefix("172.30.0.0/16"), MasqueradeBit: 14,
		},
		Services: model.Slice{
			svc("ns3", "svc3", "172.30.0.43", p80, eps("10.0.3.2", "10.0.3.3")),
			svc("ns6", "svc6", "172.30.0.46", p80, nil),
			aff,
			svc("ns8", "svc8", "172.30.0.48", np, eps("10.180.0.8")),
			svc("ns4", "svc4", "172.30.0.44", p80, eps("10.180.0.4", "10.180.0.5", "10.180.0.40")),
		},
	}
}

// renderShapes renders shapesModel as kube-proxy's transaction.
func renderShapes(t testing.TB) string {
	t.Helper()
	var buf bytes.Buffer
	// The v1.35 layout, which testdata/listing-shapes.txt was captured
	// from; v137_test.go covers v1.37.
	if _, err := rendernft.Render(&buf, shapesModel(), rendernft.Options{Version: render.KubeProxy135}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
