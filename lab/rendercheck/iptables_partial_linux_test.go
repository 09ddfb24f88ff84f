package rendercheck

import (
	"bytes"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// TestIPTablesPartialSyncsMatchFullSync loads a full sync and then partial
// syncs (a service deleted, an endpoint replaced, one added) with the real
// iptables-restore of both backends, and compares the nat table after each
// with a full sync of the same model in a fresh namespace: the stale-chain
// `:CHAIN` + `-X` lines must leave no chain behind. One service has a
// namespace with a space and one with a newline, which kube-proxy would
// write into broken lines; the kernel must take svclab's quoting.
func TestIPTablesPartialSyncsMatchFullSync(t *testing.T) {
	labtest.RequireRoot(t)
	svc := func(ns, name, ip string, eps ...string) model.Service {
		s := model.Service{Namespace: ns, Name: name, Type: model.NodePort, ClusterIP: netip.MustParseAddr(ip),
			Ports: []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080 + len(eps)}}}
		for _, e := range eps {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(e), Ready: true, Serving: true})
		}
		return s
	}
	a, b := svc("ns a", "a", "10.96.0.10", "10.130.0.1", "10.130.0.2"), svc("ns\nb", "b", "10.96.0.11", "10.130.1.1")
	c, c2 := svc("ns-c", "c", "10.96.0.12", "10.130.2.1"), svc("ns-c", "c", "10.96.0.12", "10.130.2.9")
	a3 := svc("ns a", "a", "10.96.0.10", "10.130.0.1", "10.130.0.2", "10.130.0.3")
	steps := []struct {
		name     string
		services model.Slice
		updated  string
		previous []model.Service
	}{
		{"delete b", model.Slice{a, c}, "", []model.Service{b}},
		{"replace c's endpoint", model.Slice{a, c2}, "c", []model.Service{c}},
		{"add an endpoint to a", model.Slice{a3, c2}, "a", []model.Service{a}},
	}
	for _, backend := range []string{"legacy", "nft"} {
		t.Run(backend, func(t *testing.T) {
			restore, save := "iptables-"+backend+"-restore", "iptables-"+backend+"-save"
			labtest.RequireBinary(t, restore)
			ns := labtest.ScratchNetns(t)
			load(t, ns, restore, renderPartial(t, model.Slice{a, b, c}, nil))
			for _, step := range steps {
				updated := func(i int) bool { return step.services[i].Name == step.updated }
				load(t, ns, restore, renderPartial(t, step.services, updated, step.previous...))
				fresh := labtest.ScratchNetns(t)
				load(t, fresh, restore, renderPartial(t, step.services, nil))
				if got, want := natRules(t, ns, save), natRules(t, fresh, save); got != want {
					t.Fatalf("%s: after the partial sync the nat table is\n%s\nbut a full sync gives\n%s", step.name, got, want)
				}
			}
		})
	}
}

func renderPartial(t *testing.T, services model.Slice, updated func(int) bool, previous ...model.Service) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := iptables.RenderPartial(&b, &model.Model{Cluster: model.DefaultCluster(), Services: services}, iptables.DefaultOptions(), updated, previous...); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func load(t *testing.T, ns, restore string, payload []byte) {
	t.Helper()
	if out, err := netns.Output(ns, payload, restore, "--noflush", "--counters"); err != nil {
		t.Fatalf("%s: %v (%s)\n%s", restore, err, out, payload)
	}
}

// natRules is the nat table as sorted chain and rule lines.
func natRules(t *testing.T, ns, save string) string {
	t.Helper()
	out, err := netns.Output(ns, nil, save, "-t", "nat")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, ":") {
			lines = append(lines, l[:strings.IndexByte(l, ' ')])
		} else if strings.HasPrefix(l, "-A ") {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
