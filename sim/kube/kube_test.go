package kube

import (
	"encoding/json"
	"net/netip"
	"testing"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

func testService() model.Service {
	return model.Service{
		Namespace: "ns3", Name: "svc3", Type: model.NodePort, ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Affinity: model.Affinity{ClientIP: true, Timeout: 300},
		Ports: []model.Port{
			{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30003},
			{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 30004},
		},
		Endpoints: []model.Endpoint{
			{IP: netip.MustParseAddr("10.0.3.2"), Ready: true, Serving: true, Node: "node-1"},
			{IP: netip.MustParseAddr("10.0.3.3"), Serving: true, Terminating: true, Node: "node-2"},
		},
	}
}

func TestService(t *testing.T) {
	s := testService()
	svc := Service(&s)
	checks := []struct {
		name      string
		got, want any
	}{
		{"type", svc.Spec.Type, v1.ServiceTypeNodePort},
		{"cluster IP", svc.Spec.ClusterIP, "172.30.0.43"},
		{"affinity", svc.Spec.SessionAffinity, v1.ServiceAffinityClientIP},
		{"timeout", *svc.Spec.SessionAffinityConfig.ClientIP.TimeoutSeconds, int32(300)},
		{"external policy", svc.Spec.ExternalTrafficPolicy, v1.ServiceExternalTrafficPolicyCluster},
		{"ports", len(svc.Spec.Ports), 2},
		{"port 1 protocol", svc.Spec.Ports[1].Protocol, v1.ProtocolUDP},
		{"port 1 target", svc.Spec.Ports[1].TargetPort.IntValue(), 5353},
		{"port 1 node port", svc.Spec.Ports[1].NodePort, int32(30004)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	s.Affinity = model.Affinity{ClientIP: true}
	if got := *Service(&s).Spec.SessionAffinityConfig.ClientIP.TimeoutSeconds; got != model.DefaultAffinityTimeout {
		t.Errorf("affinity without timeout: %d, want the API default %d", got, model.DefaultAffinityTimeout)
	}
}

func TestEndpointSlice(t *testing.T) {
	s := testService()
	es := EndpointSlice(&s)
	if es.Labels[discoveryv1.LabelServiceName] != "svc3" || es.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Fatalf("slice metadata: %+v", es.ObjectMeta)
	}
	cases := []struct {
		i                           int
		node                        string
		ready, serving, terminating bool
	}{
		{0, "node-1", true, true, false},
		{1, "node-2", false, true, true},
	}
	for _, c := range cases {
		e := es.Endpoints[c.i]
		if *e.NodeName != c.node || *e.Conditions.Ready != c.ready || *e.Conditions.Serving != c.serving || *e.Conditions.Terminating != c.terminating {
			t.Errorf("endpoint %d: %+v", c.i, e)
		}
	}
	if *es.Ports[0].Port != 8080 || *es.Ports[1].Name != "dns" {
		t.Errorf("slice ports: %+v", es.Ports)
	}
}

func TestDiff(t *testing.T) {
	s := testService()
	other := s
	other.Name, other.ClusterIP = "svc4", netip.MustParseAddr("172.30.0.44")
	base := model.Slice{s, other}
	cases := []struct {
		name  string
		after model.List
		want  []string // action kind
	}{
		{"nothing", base, nil},
		{"add endpoint", AddEndpoint(base, 0, model.Endpoint{IP: netip.MustParseAddr("10.0.3.4"), Ready: true}), []string{"update EndpointSlice"}},
		{"remove endpoint", RemoveEndpoint(base, 1, netip.MustParseAddr("10.0.3.2")), []string{"update EndpointSlice"}},
		{"remove service", base[:1], []string{"delete EndpointSlice", "delete Service"}},
		{"add service", append(base[:2:2], model.Service{Namespace: "ns", Name: "new", ClusterIP: netip.MustParseAddr("172.30.0.9")}), []string{"add Service", "add EndpointSlice"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := Diff(base, c.after)
			var got []string
			for _, op := range st.Ops {
				k, err := Kind(op.Object)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, op.Action+" "+k)
			}
			if len(got) != len(c.want) {
				t.Fatalf("ops %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("ops %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestRequestRoundTrip: a request survives JSON, objects and kinds intact.
func TestRequestRoundTrip(t *testing.T) {
	s := testService()
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{s}}
	req, err := NewRequest(ModeNFTables, render.Config{}, m, &model.Model{Cluster: m.Cluster, Services: model.Slice{}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var back Request
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Objects.Items) != 2 || len(back.Steps) != 1 || len(back.Steps[0].Ops) != 2 || back.ServiceCIDRs[0] != "10.96.0.0/12" {
		t.Fatalf("round trip: %d objects, %d steps, CIDRs %v", len(back.Objects.Items), len(back.Steps), back.ServiceCIDRs)
	}
	for i, want := range []string{"Service", "EndpointSlice"} {
		if k, err := Kind(back.Objects.Items[i]); err != nil || k != want {
			t.Errorf("item %d kind %q (%v), want %s", i, k, err, want)
		}
	}
}
