package apply

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestOneByOneAppliesEachChangeOnTheModelTheLastLeft applies a batch of
// three additions through a recording apply: each call gets one addition
// and the model with the earlier ones in it, and the sync is their sum.
func TestOneByOneAppliesEachChangeOnTheModelTheLastLeft(t *testing.T) {
	m := ipvsTestModel(
		twoEndpointService("a", "10.96.0.1", "10.244.0.2"),
		twoEndpointService("b", "10.96.0.2", "10.244.0.3"),
		twoEndpointService("c", "10.96.0.3", "10.244.0.4"),
	)
	ep := func(ip string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Node: "node-1"}
	}
	batch := Change{Service: 2, Endpoint: ep("10.244.1.1"), More: []Change{{Service: 0, Endpoint: ep("10.244.1.2")}, {Service: 1, Endpoint: ep("10.244.1.3")}}}
	var seen [][]int // endpoints per service as each call saw the model
	var calls []int
	record := func(_ context.Context, m *model.Model, c Change) (Sync, error) {
		if len(c.More) != 0 {
			return Sync{}, errors.New("an addition with a batch of its own")
		}
		var eps []int
		for i := range m.Services.Len() {
			eps = append(eps, len(m.Services.At(i).Endpoints))
		}
		seen, calls = append(seen, eps), append(calls, c.Service)
		return Sync{Payload: render.Stats{Lines: 2, Rules: 1}, Duration: time.Millisecond, CPU: time.Microsecond, UserCPU: time.Nanosecond, Engine: true}, nil
	}
	got, err := OneByOne(context.Background(), m, batch, record)
	if err != nil {
		t.Fatal(err)
	}
	want := Sync{Payload: render.Stats{Lines: 6, Rules: 3}, Duration: 3 * time.Millisecond, CPU: 3 * time.Microsecond, UserCPU: 3 * time.Nanosecond, Engine: true}
	if got != want {
		t.Errorf("sync %+v, want %+v", got, want)
	}
	if wantCalls := []int{2, 0, 1}; !slices.Equal(calls, wantCalls) {
		t.Errorf("applied services %v, want %v", calls, wantCalls)
	}
	for i, wantEps := range [][]int{{1, 1, 1}, {1, 1, 2}, {2, 1, 2}} {
		if !slices.Equal(seen[i], wantEps) {
			t.Errorf("call %d saw endpoints per service %v, want %v", i, seen[i], wantEps)
		}
	}
	failing := func(context.Context, *model.Model, Change) (Sync, error) { return Sync{}, errors.New("refused") }
	if _, err := OneByOne(context.Background(), m, batch, failing); err == nil {
		t.Error("a failing addition did not fail the batch")
	}
}

// TestChangeFamilies: a change wakes the proxier of each of its
// endpoints' families, and of each family a created Service has.
func TestChangeFamilies(t *testing.T) {
	ep := func(ip string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Node: "node-1"}
	}
	v4, v6 := model.IPv4, model.IPv6
	dual := model.Service{Namespace: "ns", Name: "dual", ClusterIP: netip.MustParseAddr("10.96.0.9"), SecondaryClusterIP: netip.MustParseAddr("fd00::9")}
	only6 := model.Service{Namespace: "ns", Name: "six", ClusterIP: netip.MustParseAddr("fd00::8")}
	for _, tc := range []struct {
		name   string
		change Change
		want   []model.Family
	}{
		{"an IPv4 endpoint", Change{Service: 0, Endpoint: ep("10.244.0.9")}, []model.Family{v4}},
		{"an IPv6 endpoint", Change{Service: 0, Endpoint: ep("fd00:244::9")}, []model.Family{v6}},
		{"a batch of both", Change{Service: 0, Endpoint: ep("fd00:244::9"), More: []Change{{Service: 1, Endpoint: ep("10.244.0.9")}}}, []model.Family{v4, v6}},
		{"a dual-stack Service created", Change{Service: -1, Created: []model.Service{dual}}, []model.Family{v4, v6}},
		{"an IPv6 Service created", Change{Service: -1, Created: []model.Service{only6}}, []model.Family{v6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.change.Families(); !slices.Equal(got, tc.want) {
				t.Errorf("families %v, want %v", got, tc.want)
			}
		})
	}
}
