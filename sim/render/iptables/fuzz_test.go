package iptables

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
)

// expectedRules is the rule count of one service port from the model
// alone (kube-proxy's shapes, DefaultOptions): with E usable endpoints,
// KUBE-SERVICES + masquerade + E jumps (+E affinity checks) + 2E SEP rules,
// and for a node port a KUBE-NODEPORTS rule and two KUBE-EXT rules; with
// none, a REJECT (and one for the node port).
func expectedRules(s *model.Service, p model.Port) int {
	e := len(model.UsableEndpoints(s.PortEndpoints(p)))
	nodePort := s.Type == model.NodePort && p.NodePort > 0
	if e == 0 {
		if nodePort {
			return 2
		}
		return 1
	}
	n := 2 + 3*e
	if s.Affinity.ClientIP {
		n += e
	}
	if nodePort {
		n += 3
	}
	return n
}

// FuzzRenderNames feeds arbitrary namespace, service and port names to the
// renderer (issue 10: a space broke the comment quoting, a newline injected
// a rule). Every line must be a restore line sim/iptables parses, no name
// may add or split a line, and the dump must hold exactly the rules the
// model calls for. The seed corpus is in testdata/fuzz/FuzzRenderNames.
func FuzzRenderNames(f *testing.F) {
	f.Add("ns1", "svc1", "p80", uint8(2), false, false)
	f.Add("ns 1", "svc1", "p80", uint8(1), true, true)
	f.Add("ns\n-A KUBE-SERVICES -j ACCEPT", "svc", "", uint8(3), false, true)
	f.Add(`ns"1`, `svc\`, "p\t80", uint8(0), false, true)
	f.Fuzz(func(t *testing.T, ns, name, portName string, endpoints uint8, affinity, nodePort bool) {
		s := model.Service{Namespace: ns, Name: name, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.10"),
			Ports: []model.Port{{Name: portName, Protocol: model.TCP, Port: 80, TargetPort: 8080}}}
		if affinity {
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
		}
		if nodePort {
			s.Type, s.Ports[0].NodePort = model.NodePort, 30080
		}
		for i := 0; i < int(endpoints%8); i++ {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 1, 0, byte(i + 1)}), Ready: i != 2, Serving: true, Terminating: i == 2})
		}
		var b strings.Builder
		st, err := Render(&b, testModel(s), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		payload := b.String()
		lines := strings.Split(strings.TrimSuffix(payload, "\n"), "\n")
		if len(lines) != st.Lines {
			t.Fatalf("%d lines, stats say %d", len(lines), st.Lines)
		}
		for _, l := range lines {
			if !(strings.HasPrefix(l, "*") || strings.HasPrefix(l, ":") || strings.HasPrefix(l, "-A ") || l == "COMMIT") {
				t.Fatalf("line %q is not a restore line", l)
			}
			if strings.HasPrefix(l, "-A ") {
				if _, err := simipt.ParseRule(l); err != nil {
					t.Fatalf("rule %q: %v", l, err)
				}
			}
		}
		d, err := simipt.ParseString(payload)
		if err != nil {
			t.Fatalf("payload does not parse: %v\n%s", err, payload)
		}
		if got, want := countRules(d), fixedRules+expectedRules(&s, s.Ports[0]); got != want || st.Rules != want {
			t.Fatalf("%d rules parsed, %d counted, the model calls for %d\n%s", got, st.Rules, want, payload)
		}
		checkComments(t, d, s.PortName(s.Ports[0]))
	})
}

func countRules(d *simipt.Dump) int {
	n := 0
	for _, tb := range d.Tables {
		for _, c := range tb.Chains {
			n += len(c.Rules)
		}
	}
	return n
}

// checkComments checks that every service comment reads back as the
// service port name (made safe) followed by kube-proxy's words.
func checkComments(t *testing.T, d *simipt.Dump, portName string) {
	t.Helper()
	words, err := simipt.SplitWords(commentWord(portName, false))
	if err != nil || len(words) != 1 {
		t.Fatalf("the name %q reads back as %q (%v)", portName, words, err)
	}
	safe := words[0]
	for _, tb := range d.Tables {
		for _, c := range tb.Chains {
			for _, r := range c.Rules {
				if !r.HasComment || strings.HasPrefix(r.Comment, "kubernetes ") || strings.HasPrefix(r.Comment, "block incoming") {
					continue
				}
				text := strings.TrimPrefix(r.Comment, "masquerade traffic for ")
				if len(r.Comment) < maxComment && !strings.HasPrefix(text, safe) {
					t.Fatalf("comment %q of %s does not start with the name %q", r.Comment, c.Name, safe)
				}
				if len(r.Comment) > maxComment {
					t.Fatalf("comment of %d bytes", len(r.Comment))
				}
			}
		}
	}
}

func TestFuzzSeedsAreDistinct(t *testing.T) {
	// The corpus names the cases issue 10 reported; make sure the quoting
	// of each differs from kube-proxy's raw form only where it must.
	for _, name := range []string{"ns1/svc1:p80", "ns 1/svc1:p80", "ns\n1/svc1:p80"} {
		w := commentWord(name, false)
		if plainName(name) != (w == name) {
			t.Errorf("%q: word %s", name, w)
		}
		if strings.ContainsAny(w, "\n\r") {
			t.Errorf("%q: word %q keeps a line break", name, w)
		}
		_ = fmt.Sprint(w)
	}
}
