package scenario

import (
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	idle := "  - namespace: demo\n    name: idle\n    clusterIP: 10.96.0.11\n" +
		"    ports: [{name: dns, protocol: UDP, port: 53}, {name: http, port: 80}]\n    endpoints: []\nfairness:"
	yaml := strings.Replace(edit("services: [1, 1000]", "services: [1, 1000]\n  maxServices: {nftables: 500}\n  positions: [first, last]"), "fairness:", idle, 1)
	sc, err := Parse("s.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Plan()
	// fairness: web:http and idle:http (no ready endpoint, still planned; UDP is not measured)
	if len(p.Fairness) != 2 || p.Fairness[0].Service != "demo/web:http" || p.Fairness[1].Service != "demo/idle:http" {
		t.Fatalf("fairness plan %+v", p.Fairness)
	}
	// sweep: (1 × 2 dataplanes + 1000 × iptables-nft only) × 2 positions × 3 repetitions
	if len(p.Points) != 3*2*3 {
		t.Fatalf("%d planned points, want 18: %+v", len(p.Points), p.Points)
	}
	for _, pt := range p.Points {
		if pt.Dataplane == "nftables" && pt.Services > 500 {
			t.Fatalf("planned %+v above maxServices", pt)
		}
		if pt.Repetition < 1 || pt.Repetition > 3 {
			t.Fatalf("repetition %d", pt.Repetition)
		}
	}
}
