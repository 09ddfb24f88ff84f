package iptables

import (
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestKubeProxySyncRepeated replays kube-proxy's TestSyncProxyRulesRepeated
// (v1.35.4 and v1.37.2) through RenderPartial: each step changes the model
// as the test changes its Services and EndpointSlices, marks the changed
// services updated and passes the previous state of every changed or
// deleted one, and the payload must equal kube-proxy's, stale-chain
// flushes and -X lines included, after the canonical sort.
func TestKubeProxySyncRepeated(t *testing.T) {
	svc := func(ns string, ip string, port int, eps ...string) model.Service {
		s := model.Service{Namespace: ns, Name: strings.Replace(ns, "ns", "svc", 1), Type: model.ClusterIP, ClusterIP: netip.MustParseAddr(ip),
			Ports: []model.Port{{Name: "p" + strconv.Itoa(port), Protocol: model.TCP, Port: port, TargetPort: port}}}
		for _, e := range eps {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(e), Ready: true, Serving: true})
		}
		return s
	}
	svc1, svc2 := svc("ns1", "172.30.0.41", 80, "10.0.1.1"), svc("ns2", "172.30.0.42", 8080, "10.0.2.1")
	svc3 := svc("ns3", "172.30.0.43", 80, "10.0.3.1")
	svc4 := svc("ns4", "172.30.0.44", 80)
	svc4eps := svc("ns4", "172.30.0.44", 80, "10.0.4.1")
	svc3b, svc3c := svc("ns3", "172.30.0.43", 80, "10.0.3.2"), svc("ns3", "172.30.0.43", 80, "10.0.3.2", "10.0.3.3")
	steps := []struct {
		name     string
		services model.Slice
		updated  []string        // names of the updated services; nil: a full sync
		previous []model.Service // the changed and deleted services before the step
	}{
		{"full sync", model.Slice{svc1, svc2}, nil, nil},
		{"add svc3", model.Slice{svc1, svc2, svc3}, []string{"svc3"}, nil},
		{"delete svc2", model.Slice{svc1, svc3}, []string{}, []model.Service{svc2}},
		{"add svc4 without endpoints", model.Slice{svc1, svc3, svc4}, []string{"svc4"}, nil},
		{"add svc4's endpoint", model.Slice{svc1, svc3, svc4eps}, []string{"svc4"}, []model.Service{svc4}},
		{"change svc3's endpoint", model.Slice{svc1, svc3b, svc4eps}, []string{"svc3"}, []model.Service{svc3}},
		{"add an endpoint to svc3", model.Slice{svc1, svc3c, svc4eps}, []string{"svc3"}, []model.Service{svc3b}},
		{"no change", model.Slice{svc1, svc3c, svc4eps}, []string{}, nil},
		{"full sync after deleting svc4", model.Slice{svc1, svc3c}, nil, []model.Service{svc4eps}},
	}
	for _, r := range render.KubeProxyReleases() {
		v, file := r.Version, r.Patch+"-TestSyncProxyRulesRepeated.rules"
		raw, err := os.ReadFile(filepath.Join("testdata", "kube-proxy", file))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(string(raw), "#---\n")
		if len(want) != len(steps) {
			t.Fatalf("%s has %d payloads, the test %d steps", file, len(want), len(steps))
		}
		opts := Options{Version: v, NFAcct: true, LargeClusterThreshold: 1000}
		syncer := NewSyncer(opts)
		for i, step := range steps {
			t.Run(string(v)+"/"+step.name, func(t *testing.T) {
				var updated func(int) bool
				if step.updated != nil {
					updated = func(k int) bool { return contains(step.updated, step.services[k].Name) }
				}
				var b strings.Builder
				m := &model.Model{Cluster: kubeProxyCluster(), Services: step.services}
				if _, err := RenderPartial(&b, m, opts, updated, step.previous...); err != nil {
					t.Fatal(err)
				}
				got, err := simipt.Canonical(strings.ReplaceAll(b.String(), "0x00004000", "0x4000"))
				if err != nil {
					t.Fatalf("%v\n%s", err, b.String())
				}
				exp, err := simipt.Canonical(want[i])
				if err != nil {
					t.Fatal(err)
				}
				if got != exp {
					t.Errorf("payload differs from kube-proxy's:\n%s", golden.Diff(exp, got))
				}
				// The Syncer works out updated and previous itself.
				b.Reset()
				sync := syncer.Sync
				if step.updated == nil && i > 0 {
					sync = syncer.FullSync
				}
				if _, err := sync(&b, m); err != nil {
					t.Fatal(err)
				}
				if got, _ := simipt.Canonical(strings.ReplaceAll(b.String(), "0x00004000", "0x4000")); got != exp {
					t.Errorf("Syncer's payload differs from kube-proxy's:\n%s", golden.Diff(exp, got))
				}
			})
		}
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
