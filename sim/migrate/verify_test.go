package migrate

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

func pathFrom(c Client, src string, proto model.Protocol) Path {
	q := route.Query{Dst: netip.MustParseAddrPort("10.96.0.1:80"), Proto: proto}
	if src != "" {
		q.Src = ip(src)
	}
	return Path{Service: "ns/s", Port: "80", Family: model.IPv4, Target: ToClusterIP, Client: c, Query: q}
}

// TestAgrees: each handling the tracer gives is matched only by what the
// kernel does with it.
func TestAgrees(t *testing.T) {
	served := Outcome{Handling: Served, Endpoints: []Reached{{Endpoint: "10.0.0.1:8080", Probability: 0.5, Sees: "client"}, {Endpoint: "10.0.0.2:8080", Probability: 0.5, Sees: "client"}}}
	masq := Outcome{Handling: Served, Endpoints: []Reached{{Endpoint: "10.0.0.1:8080", Probability: 1, Sees: "node"}}}
	ep := func(e, src string) Observation { return Observation{Seen: SeenEndpoint, Endpoint: e, Source: ip(src)} }
	pod := pathFrom(FromPod, "10.244.0.5", model.TCP)
	node := pathFrom(FromNode, "", model.TCP)
	udp := pathFrom(FromPod, "10.244.0.5", model.UDP)
	tests := []struct {
		name string
		path Path
		want Outcome
		got  []Observation
		ok   bool
	}{
		{"served by listed endpoints", pod, served, []Observation{ep("10.0.0.1:8080", "10.244.0.5"), ep("10.0.0.2:8080", "10.244.0.5")}, true},
		{"served by an unlisted endpoint", pod, served, []Observation{ep("10.0.0.3:8080", "10.244.0.5")}, false},
		{"served but masqueraded", pod, served, []Observation{ep("10.0.0.1:8080", "192.168.99.1")}, false},
		{"masquerade expected and seen", pod, masq, []Observation{ep("10.0.0.1:8080", "192.168.99.1")}, true},
		{"masquerade expected, client seen", pod, masq, []Observation{ep("10.0.0.1:8080", "10.244.0.5")}, false},
		{"from the node: source not checked", node, served, []Observation{ep("10.0.0.1:8080", "192.168.99.1")}, true},
		{"served but refused", pod, served, []Observation{{Seen: SeenRefused}}, false},
		{"dropped: timeout", pod, Outcome{Handling: Dropped}, []Observation{{Seen: SeenTimeout}}, true},
		{"dropped on the node: EPERM", node, Outcome{Handling: Dropped}, []Observation{{Seen: SeenDenied}}, true},
		{"dropped but refused", pod, Outcome{Handling: Dropped}, []Observation{{Seen: SeenRefused}}, false},
		{"rejected: refused", pod, Outcome{Handling: Rejected}, []Observation{{Seen: SeenRefused}}, true},
		{"rejected: unreachable", pod, Outcome{Handling: Rejected}, []Observation{{Seen: SeenUnreach}}, true},
		{"rejected but timed out", pod, Outcome{Handling: Rejected}, []Observation{{Seen: SeenTimeout}}, false},
		{"untouched: reached", pod, Outcome{Handling: Untouched}, []Observation{{Seen: SeenUntouched}}, true},
		{"untouched but served", pod, Outcome{Handling: Untouched}, []Observation{ep("10.0.0.1:8080", "10.244.0.5")}, false},
		{"untouched but refused", pod, Outcome{Handling: Untouched}, []Observation{{Seen: SeenRefused}}, false},
		{"untouched UDP: no answer", udp, Outcome{Handling: Untouched}, []Observation{{Seen: SeenTimeout}}, true},
		{"untouched TCP: no answer", pod, Outcome{Handling: Untouched}, []Observation{{Seen: SeenTimeout}}, false},
		{"one of several disagrees", pod, served, []Observation{ep("10.0.0.1:8080", "10.244.0.5"), {Seen: SeenTimeout}}, false},
		{"nothing observed", pod, served, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Agrees(tt.path, tt.want, tt.got)
			if ok != tt.ok {
				t.Fatalf("Agrees = %v (%s), want %v", ok, why, tt.ok)
			}
			if !ok && why == "" {
				t.Fatal("a disagreement without a reason")
			}
		})
	}
}

// TestJudge: a class is CONTRADICTED by one disagreeing probe, NOT
// VERIFIED when a kernel run sent none of its probes, CONFIRMED when
// every run agrees.
func TestJudge(t *testing.T) {
	r := compare(t, features(t), "iptables", "nftables", other)
	probes := VerifyProbes(r)
	if len(r.Classes) != 3 || len(probes) == 0 {
		t.Fatalf("%d classes, %d probes", len(r.Classes), len(probes))
	}
	// A kernel that does what the tracer says on each side.
	faithful := func(side string) Kernel {
		k := Kernel{Side: side, Dataplane: "k", Seen: make([][]Observation, len(probes)), Unsent: make([]string, len(probes))}
		for i, p := range probes {
			k.Seen[i] = []Observation{asSeen(p.Path, p.Outcome(side))}
		}
		return k
	}
	v := Judge(r, probes, []Kernel{faithful(SideFrom), faithful(SideTo)})
	if len(v.Verdicts) != len(r.Classes)+1 {
		t.Fatalf("%d verdicts for %d classes and the controls", len(v.Verdicts), len(r.Classes))
	}
	for _, d := range v.Verdicts {
		if d.State != Confirmed {
			t.Errorf("%s: %s (%s), want CONFIRMED", d.Class, d.State, d.Reason)
		}
	}
	bad := faithful(SideTo)
	bad.Seen[0] = []Observation{{Seen: SeenTimeout}}
	if probes[0].To.Handling == Dropped {
		bad.Seen[0] = []Observation{{Seen: SeenRefused}}
	}
	v = Judge(r, probes, []Kernel{faithful(SideFrom), bad})
	if d := v.Verdicts[probes[0].Class]; d.State != Contradicted || !strings.Contains(d.Reason, probes[0].Path.String()) {
		t.Errorf("a disagreeing probe: %s (%s), want CONTRADICTED naming %s", d.State, d.Reason, probes[0].Path)
	}
	if !v.Contradicted() {
		t.Error("Contradicted() = false")
	}
	v = Judge(r, probes, []Kernel{faithful(SideFrom), {Side: SideTo, Dataplane: "ipvs", Skipped: "no guest"}})
	for _, d := range v.Verdicts {
		if d.State != NotVerified || !strings.Contains(d.Reason, "no guest") {
			t.Errorf("%s with a side skipped: %s (%s), want NOT VERIFIED saying why", d.Class, d.State, d.Reason)
		}
	}
}

// TestVerifyProbes: every group of every class is probed in each of its
// families, and the controls behave the same on both sides.
func TestVerifyProbes(t *testing.T) {
	r := compare(t, features(t), "iptables", "nftables", other)
	probes := VerifyProbes(r)
	for ci, c := range r.Classes {
		for _, g := range c.Groups {
			for _, f := range g.Families {
				if !slices.ContainsFunc(probes, func(p Probe) bool {
					return p.Class == ci && p.Path.Kind() == g.Kind && p.Path.Family.String() == f
				}) {
					t.Errorf("class %s group %s: no %s probe", classTitle(c), g.Kind, f)
				}
			}
		}
	}
	controls := 0
	for _, p := range probes {
		if p.Class == Control {
			controls++
			if Change(p.From, p.To) != "" {
				t.Errorf("control %s differs: %s | %s", p.Path, p.From, p.To)
			}
		}
	}
	if controls == 0 || controls > maxControls {
		t.Errorf("%d controls, want 1..%d", controls, maxControls)
	}
}

// asSeen is what a kernel that does as the tracer says would show.
func asSeen(p Path, o Outcome) Observation {
	switch o.Handling {
	case Served:
		src := p.Query.Src
		if o.Endpoints[0].Sees == "node" {
			src = ip("192.168.99.1")
		}
		return Observation{Seen: SeenEndpoint, Endpoint: o.Endpoints[0].Endpoint, Source: src}
	case Dropped:
		return Observation{Seen: SeenTimeout}
	case Rejected:
		return Observation{Seen: SeenRefused}
	}
	return Observation{Seen: SeenUntouched}
}
