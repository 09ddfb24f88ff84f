package nftables

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestKubeProxySyncRepeated ports the endpoint changes of kube-proxy's
// TestSyncProxyRulesRepeated (v1.37.2, pkg/proxy/nftables/proxier_test.go)
// to RenderServiceChange: each partial transaction, applied over the state
// so far, must leave the state a full sync of the new model gives (stale
// service chains kube-proxy only flushes are ignored), and in the v1.37
// layout it must have as many operations as kube-proxy's assertNumOperations
// counts.
func TestKubeProxySyncRepeated(t *testing.T) {
	svc := func(ns string, ip string, eps ...string) model.Service {
		s := model.Service{Namespace: ns, Name: strings.Replace(ns, "ns", "svc", 1), Type: model.ClusterIP,
			ClusterIP: netip.MustParseAddr(ip), Ports: []model.Port{p80}}
		for _, e := range eps {
			s.Endpoints = append(s.Endpoints, kubeProxyEndpoint(e, "test-node"))
		}
		return s
	}
	steps := []struct {
		name  string
		svc3  model.Service
		ops37 int
	}{
		{"change an endpoint", svc("ns3", "172.30.0.43", "10.0.3.2"), 2 + 3},
		{"add an endpoint", svc("ns3", "172.30.0.43", "10.0.3.2", "10.0.3.3"), 1 + 3},
		{"empty the endpoints", svc("ns3", "172.30.0.43"), 2 + 2 + 1},
		{"restore the endpoints", svc("ns3", "172.30.0.43", "10.0.3.2", "10.0.3.3"), 2 + 2 + 3},
	}
	for _, v := range render.KubeProxyVersions {
		t.Run(string(v), func(t *testing.T) {
			services := model.Slice{svc("ns1", "172.30.0.41", "10.0.1.1"), svc("ns3", "172.30.0.43", "10.0.3.1"), svc("ns4", "172.30.0.44", "10.0.4.1")}
			opts := kubeProxyOptions(v)
			txs := []string{renderString(t, services, opts)}
			for _, step := range steps {
				before := services[1]
				services[1] = step.svc3
				var tx bytes.Buffer
				st, err := RenderServiceChange(&tx, kubeProxyCluster(), &before, &services[1], opts)
				if err != nil {
					t.Fatal(err)
				}
				txs = append(txs, tx.String())
				if v == render.KubeProxy137 && st.Lines != step.ops37 {
					t.Errorf("%s: %d operations, kube-proxy runs %d:\n%s", step.name, st.Lines, step.ops37, tx.String())
				}
				got := withoutEmptyServiceChains(finalDump(t, txs...))
				want := withoutEmptyServiceChains(finalDump(t, renderString(t, services, opts)))
				if d := golden.Diff(want, got); d != "" {
					t.Errorf("%s: state after the partial sync differs from a full sync:\n%s", step.name, d)
				}
			}
		})
	}
}

func renderString(t *testing.T, services model.Slice, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := Render(&b, &model.Model{Cluster: kubeProxyCluster(), Services: services}, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withoutEmptyServiceChains drops "add chain" lines of service chains (a
// "/" in the name) that have no rule: kube-proxy flushes stale chains and
// deletes them a second later, in another transaction.
func withoutEmptyServiceChains(dump string) string {
	lines := strings.Split(dump, "\n")
	hasRules := map[string]bool{}
	for _, l := range lines {
		if w := strings.Fields(l); len(w) > 4 && w[1] == "rule" {
			hasRules[w[4]] = true
		}
	}
	out := lines[:0]
	for _, l := range lines {
		if w := strings.Fields(l); len(w) == 5 && w[1] == "chain" && strings.Contains(w[4], "/") && !hasRules[w[4]] {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
