package conformance

import (
	"context"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

func TestSmoke(t *testing.T) {
	for _, mode := range []string{"iptables", "nftables", "ipvs"} {
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{{
		Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: 3003}},
		Endpoints: []model.Endpoint{{IP: netip.MustParseAddr("10.0.3.2"), Ready: true, Node: "node-1"}, {IP: netip.MustParseAddr("10.0.3.3"), Ready: true, Node: "node-2"}},
	}}}
	m2 := &model.Model{Cluster: m.Cluster, Services: kube.AddEndpoint(m.Services, 0, model.Endpoint{IP: netip.MustParseAddr("10.0.3.4"), Ready: true})}
	req, err := kube.NewRequest(mode, m, m2)
	if err != nil { t.Fatal(err) }
	req.NodeIP = "192.168.0.2"
	err = driver.Run(context.Background(), req, true, func(s kube.Sync) error {
		t.Logf("%s sync %d full=%v %dns err=%q\n%s\n%s\n%s", mode, s.Index, s.Full, s.DurationNS, s.Error, s.Payload, s.IPVS, s.IPSet)
		return nil
	})
	if err != nil { t.Fatal(err) }
	}
}
