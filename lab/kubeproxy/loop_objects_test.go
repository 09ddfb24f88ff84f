package kubeproxy

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestObjectSetKeepsCurrentState: a restarted kube-proxy starts from the
// objects as last sent: adds and updates replace, deletes remove, Services
// come first; bad events are refused.
func TestObjectSetKeepsCurrentState(t *testing.T) {
	svc := func(name string, ips ...string) *model.Service {
		s := &model.Service{Namespace: "ns", Name: name, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.1"),
			Ports: []model.Port{{Name: "p", Protocol: model.UDP, Port: 53, TargetPort: 53}}}
		for _, ip := range ips {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true})
		}
		return s
	}
	req, err := kube.NewRequest(kube.ModeNFTables, render.Config{}, &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{*svc("b", "10.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	set, err := newObjectSet(req.Objects)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []kube.Op{
		{Action: kube.Add, Object: kube.Raw(kube.EndpointSlice(svc("a", "10.0.0.9")))},
		{Action: kube.Add, Object: kube.Raw(kube.Service(svc("a")))},
		{Action: kube.Update, Object: kube.Raw(kube.EndpointSlice(svc("b", "10.0.0.2")))},
		{Action: kube.Delete, Object: kube.Raw(kube.EndpointSlice(svc("a")))},
	} {
		if err := set.apply(op); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, item := range set.list().Items {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct{ Name string }
		}
		if err := json.Unmarshal(item.Raw, &o); err != nil {
			t.Fatal(err)
		}
		got = append(got, o.Kind+"/"+o.Metadata.Name)
	}
	want := "Service/a Service/b EndpointSlice/b-svclab"
	if strings.Join(got, " ") != want {
		t.Errorf("objects %v; want %s", got, want)
	}
	if b, _ := json.Marshal(set.list()); !strings.Contains(string(b), "10.0.0.2") || strings.Contains(string(b), "10.0.0.1") {
		t.Errorf("b's slice is not the updated one: %s", b)
	}
	for _, bad := range []kube.Op{
		{Action: "replace", Object: kube.Raw(kube.Service(svc("a")))},
		{Action: kube.Add, Object: kube.Raw(&req.Objects)},
	} {
		if err := set.apply(bad); err == nil {
			t.Errorf("event %s accepted", bad.Action)
		}
	}
}
