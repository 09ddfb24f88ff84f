package ipvs

import (
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// TestKubeProxyOnlyServingTerminating ports kube-proxy's
// Test_EndpointSliceOnlyReadyAndTerminatingCluster (v1.37.2,
// pkg/proxy/ipvs/proxier_test.go; its external IP is left out): with no
// ready endpoint, the real servers are the serving and terminating ones on
// any node, and KUBE-LOOP-BACK holds every endpoint on this node, whatever
// its conditions.
func TestKubeProxyOnlyServingTerminating(t *testing.T) {
	e := func(ip string, serving, terminating bool, node string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Serving: serving, Terminating: terminating, Node: node}
	}
	s := model.Service{Namespace: "ns1", Name: "svc1", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.20.1.1"),
		Ports: []model.Port{{Protocol: model.TCP, Port: 80, TargetPort: 80}},
		Endpoints: []model.Endpoint{
			e("10.0.1.1", true, true, "node-1"), e("10.0.1.2", true, true, "node-1"), e("10.0.1.3", false, true, "node-1"),
			e("10.0.1.4", true, true, "another-node"), e("10.0.1.5", false, false, "another-node"),
		}}
	r := renderAndReplay(t, testModel(s), DefaultOptions())
	vs := r.ipvs.services["tcp 172.20.1.1:80"]
	if vs == nil || len(r.ipvs.services) != 1 {
		t.Fatalf("virtual servers %v, want tcp 172.20.1.1:80 only", r.ipvs.services)
	}
	var reals []string
	for d := range vs.dests {
		reals = append(reals, d)
	}
	sort.Strings(reals)
	if got := strings.Join(reals, " "); got != "10.0.1.1:80 10.0.1.2:80 10.0.1.4:80" {
		t.Errorf("real servers %s, want 10.0.1.1:80 10.0.1.2:80 10.0.1.4:80", got)
	}
	if got := r.sets.members("KUBE-LOOP-BACK"); got != 3 {
		t.Errorf("KUBE-LOOP-BACK has %d members, want 3 (10.0.1.1-3, ready or not)", got)
	}
	for _, ip := range []string{"10.0.1.1", "10.0.1.2", "10.0.1.3"} {
		if !strings.Contains(string(r.combined), "add KUBE-LOOP-BACK "+ip+",tcp:80,"+ip+" -exist\n") {
			t.Errorf("KUBE-LOOP-BACK lacks %s", ip)
		}
	}
}
