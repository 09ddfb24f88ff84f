package rendercheck

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// TestIPTablesPayloadAcceptedByRestore feeds the rendered payload to the
// real iptables-restore of both backends, in a scratch namespace: first with
// --test, then for real followed by the jump rules, and reads it back.
func TestIPTablesPayloadAcceptedByRestore(t *testing.T) {
	labtest.RequireRoot(t)
	const services = 5
	for _, eps := range []int{1, 3, 1000} {
		for _, backend := range []string{"legacy", "nft"} {
			t.Run(fmt.Sprintf("%s/%d-endpoints", backend, eps), func(t *testing.T) {
				restore := "iptables-" + backend + "-restore"
				labtest.RequireBinary(t, restore)
				ns := labtest.ScratchNetns(t)
				payload := renderIPTables(t, services, eps)
				if _, err := netns.Output(ns, payload, restore, "--test", "--noflush"); err != nil {
					t.Fatalf("%s --test rejected the payload: %v", restore, err)
				}
				if _, err := netns.Output(ns, payload, restore, "--noflush", "--counters"); err != nil {
					t.Fatalf("%s rejected the payload: %v", restore, err)
				}
				var jumps bytes.Buffer
				if _, err := iptables.RenderJumps(&jumps, iptables.DefaultOptions()); err != nil {
					t.Fatal(err)
				}
				if _, err := netns.Output(ns, jumps.Bytes(), restore, "--noflush"); err != nil {
					t.Fatalf("%s rejected the jump rules: %v", restore, err)
				}
				saved, err := netns.Output(ns, nil, "iptables-"+backend+"-save", "-t", "nat")
				if err != nil {
					t.Fatal(err)
				}
				wantSEP := services * eps
				if got := strings.Count(string(saved), "-j DNAT"); got != wantSEP {
					t.Fatalf("kernel holds %d DNAT rules, want %d", got, wantSEP)
				}
				if !strings.Contains(string(saved), "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES") {
					t.Fatalf("PREROUTING jump missing from:\n%.2000s", saved)
				}
			})
		}
	}
}

func renderIPTables(t *testing.T, services, endpoints int) []byte {
	t.Helper()
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: endpoints, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := iptables.Render(&b, &model.Model{Cluster: model.DefaultCluster(), Services: gen}, iptables.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
