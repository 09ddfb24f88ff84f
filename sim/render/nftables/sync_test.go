package nftables

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestKubeProxySyncRepeatedServices ports the service additions and
// deletions of kube-proxy's TestSyncProxyRulesRepeated (v1.37.2,
// pkg/proxy/nftables) to RenderSync: the operation counts of its
// assertNumOperations, and the state a full sync gives.
func TestKubeProxySyncRepeatedServices(t *testing.T) {
	svc := func(n, ip string, port int, eps ...string) model.Service {
		s := model.Service{Namespace: "ns" + n, Name: "svc" + n, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr(ip),
			Ports: []model.Port{{Name: fmt.Sprintf("p%d", port), Protocol: model.TCP, Port: port, TargetPort: port}}}
		for _, e := range eps {
			s.Endpoints = append(s.Endpoints, kubeProxyEndpoint(e, "test-node"))
		}
		return s
	}
	svc1, svc2 := svc("1", "172.30.0.41", 80, "10.0.1.1"), svc("2", "172.30.0.42", 8080, "10.0.2.1")
	svc3, svc4, svc4eps := svc("3", "172.30.0.43", 80, "10.0.3.1"), svc("4", "172.30.0.44", 80), svc("4", "172.30.0.44", 80, "10.0.4.1")
	steps := []struct {
		name     string
		services model.Slice
		ops37    int
	}{
		{"add svc3", model.Slice{svc1, svc2, svc3}, 3 + 3},
		{"delete svc2", model.Slice{svc1, svc3}, 3 + 1},
		{"no change", model.Slice{svc1, svc3}, 0},
		{"add svc4 without endpoints", model.Slice{svc1, svc3, svc4}, 2},
		{"add svc4's endpoint", model.Slice{svc1, svc3, svc4eps}, 2 + 1 + 3},
	}
	for _, v := range render.KubeProxyVersions {
		t.Run(string(v), func(t *testing.T) {
			opts := kubeProxyOptions(v)
			prev := model.Slice{svc1, svc2}
			txs := []string{renderString(t, prev, opts)}
			for _, step := range steps {
				tx, st := syncString(t, prev, step.services, opts)
				txs = append(txs, tx)
				if v == render.KubeProxy137 && st.Lines != step.ops37 {
					t.Errorf("%s: %d operations, kube-proxy runs %d:\n%s", step.name, st.Lines, step.ops37, tx)
				}
				checkSameState(t, step.name, txs, step.services, opts)
				prev = step.services
			}
		})
	}
}

func syncString(t *testing.T, before, after model.Slice, opts Options) (string, render.Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := RenderSync(&b, &model.Model{Cluster: kubeProxyCluster(), Services: before}, &model.Model{Cluster: kubeProxyCluster(), Services: after}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), st
}

// checkSameState applies txs to an empty table and compares the result
// with a full sync of services.
func checkSameState(t *testing.T, name string, txs []string, services model.Slice, opts Options) {
	t.Helper()
	got := withoutEmptyServiceChains(finalDump(t, txs...))
	want := withoutEmptyServiceChains(finalDump(t, renderString(t, services, opts)))
	if d := golden.Diff(want, got); d != "" {
		t.Fatalf("%s: state after the partial syncs differs from a full sync:\n%s\ntransactions:\n%s", name, d, txs[len(txs)-1])
	}
}

// randomServices draws up to five services from a small pool of names,
// ports and endpoint addresses (so that services share hairpin elements
// and changes touch every kind of object).
func randomServices(rng *rand.Rand) model.Slice {
	var out model.Slice
	for i := 0; i < 5; i++ {
		if rng.IntN(3) == 0 {
			continue
		}
		s := model.Service{Namespace: "ns", Name: fmt.Sprintf("svc%d", i), Type: model.ClusterIP,
			ClusterIP: netip.AddrFrom4([4]byte{172, 30, 0, byte(10 + i)})}
		if rng.IntN(2) == 0 {
			s.Type = model.NodePort
		}
		for p := 0; p <= rng.IntN(2); p++ {
			port := model.Port{Name: fmt.Sprintf("p%d", p), Protocol: []model.Protocol{model.TCP, model.UDP}[rng.IntN(2)], Port: 80 + p, TargetPort: 8080 + rng.IntN(2)}
			if s.Type == model.NodePort {
				port.NodePort = 30000 + 10*i + p
			}
			s.Ports = append(s.Ports, port)
		}
		if rng.IntN(4) == 0 {
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 60} // a changed timeout re-adds an existing set with another timeout, which the state model ignores
		}
		s.Endpoints = randomEndpoints(rng)
		out = append(out, s)
	}
	return out
}

// randomEndpoints draws up to four endpoints with random conditions and
// nodes from six addresses.
func randomEndpoints(rng *rand.Rand) []model.Endpoint {
	var out []model.Endpoint
	for e := 0; e < rng.IntN(5); e++ {
		out = append(out, model.Endpoint{
			IP: netip.AddrFrom4([4]byte{10, 180, 0, byte(1 + rng.IntN(6))}), Ready: rng.IntN(3) > 0, Serving: rng.IntN(2) == 0,
			Terminating: rng.IntN(2) == 0, Node: []string{"test-node", "other-node", ""}[rng.IntN(3)]})
	}
	return out
}

// TestRenderSyncRandom runs random sequences of cluster states through
// RenderSync in both layouts: every transaction must apply (no element
// deleted that is not there, none re-added with another value, no rule in
// a missing chain) and leave the state a full sync gives. Every other step
// changes only one service's endpoints.
func TestRenderSyncRandom(t *testing.T) {
	for _, v := range render.KubeProxyVersions {
		opts := kubeProxyOptions(v)
		for seed := uint64(0); seed < 120; seed++ {
			rng := rand.New(rand.NewPCG(seed, 12))
			prev := randomServices(rng)
			txs := []string{renderString(t, prev, opts)}
			for step := 0; step < 6; step++ {
				next := randomServices(rng)
				if step%2 == 1 && len(prev) > 0 { // an endpoint-only change
					next = append(model.Slice(nil), prev...)
					k := rng.IntN(len(next))
					next[k].Endpoints = randomEndpoints(rng)
				}
				tx, _ := syncString(t, prev, next, opts)
				txs = append(txs, tx)
				checkSameState(t, fmt.Sprintf("%s seed %d step %d", v, seed, step), txs, next, opts)
				prev = next
			}
		}
	}
}
