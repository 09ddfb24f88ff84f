package rendercheck

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// nameAlphabet mixes what names can hold and what would break a rule line
// if it reached it unquoted: spaces, quotes, backslashes, newlines, rule
// syntax, control characters and non-ASCII.
var nameAlphabet = []string{"a", "z", "0", "-", ".", " ", "\t", "\n", "\r", "\"", "'", "\\", "#", ";", "$", "`", "-A KUBE-SERVICES -j DROP", "COMMIT", "*nat", "é", "日", "\x00", "\x7f", "/", ":"}

func randomName(rng *rand.Rand) string {
	var b strings.Builder
	for n := 1 + rng.IntN(12); n > 0; n-- {
		b.WriteString(nameAlphabet[rng.IntN(len(nameAlphabet))])
	}
	return b.String()
}

// TestRandomNamesAcceptedByRestore renders services with random names (of
// the kind the scenario layer refuses, but a Go caller can pass) and checks
// that the real iptables-restore of both backends accepts every rendering
// (--test) and that the payload holds exactly the rules the renderer counted
// and one DNAT rule per endpoint: no name injects or breaks a rule.
func TestRandomNamesAcceptedByRestore(t *testing.T) {
	labtest.RequireRoot(t)
	ns := labtest.ScratchNetns(t)
	rng := rand.New(rand.NewPCG(7, 10))
	for i := 0; i < 150; i++ {
		s := model.Service{Namespace: randomName(rng), Name: randomName(rng), Type: model.ClusterIP,
			ClusterIP: netip.MustParseAddr("10.96.0.10"),
			Ports:     []model.Port{{Name: randomName(rng), Protocol: model.TCP, Port: 80, TargetPort: 8080}}}
		if rng.IntN(2) == 0 {
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
		}
		endpoints := rng.IntN(4)
		for j := 0; j < endpoints; j++ {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 1, 0, byte(j + 1)}), Ready: true, Node: "node-1"})
		}
		var payload strings.Builder
		st, err := iptables.Render(&payload, &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{s}}, iptables.DefaultOptions())
		if err != nil {
			t.Fatalf("render %q/%q: %v", s.Namespace, s.Name, err)
		}
		text := payload.String()
		if rules := strings.Count(text, "\n-A "); rules != st.Rules {
			t.Fatalf("names %q/%q/%q: %d rule lines, the renderer counted %d:\n%s", s.Namespace, s.Name, s.Ports[0].Name, rules, st.Rules, text)
		}
		if dnat := strings.Count(text, " -j DNAT "); dnat != endpoints {
			t.Fatalf("names %q/%q: %d DNAT rules for %d endpoints", s.Namespace, s.Name, dnat, endpoints)
		}
		for _, restore := range []string{"iptables-legacy-restore", "iptables-nft-restore"} {
			if _, err := netns.Output(ns, []byte(text), restore, "--test", "--noflush"); err != nil {
				t.Fatalf("%s --test refused the rendering of %q/%q/%q: %v\n%s", restore, s.Namespace, s.Name, s.Ports[0].Name, err, text)
			}
		}
	}
}
