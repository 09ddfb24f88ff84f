package conformance

import (
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// TestGeneratorCoverage: the 1,000 generated cases cover every feature
// the suite claims to, each many times.
func TestGeneratorCoverage(t *testing.T) {
	seen := map[string]int{}
	for seed := range uint64(1000) {
		tc := Generate(seed)
		total := 0
		for _, s := range tc.Services {
			total += len(s.Endpoints) * len(s.Ports)
			countService(seen, &s)
		}
		switch {
		case total > 1000 && total <= 1100:
			seen["large, just above the threshold"]++
		case total >= 900 && total <= 1000:
			seen["large, at or just below the threshold"]++
		}
		for _, c := range tc.Changes {
			seen["change "+string(c.Kind)]++
		}
	}
	for _, f := range []string{
		"ClusterIP", "NodePort", "ClientIP affinity", "TCP", "UDP", "SCTP", "several ports", "no endpoints",
		"20 endpoints", "ready", "not ready", "serving terminating", "terminating not serving", "local", "remote",
		"large, just above the threshold", "large, at or just below the threshold",
		"change add-service", "change remove-service", "change add-endpoint", "change remove-endpoint", "change replace-endpoint",
	} {
		if seen[f] < 10 {
			t.Errorf("%q in %d cases of 1000, want at least 10", f, seen[f])
		}
		t.Logf("%-40s %d", f, seen[f])
	}
}

func countService(seen map[string]int, s *model.Service) {
	seen[string(s.Type)]++
	if s.Affinity.ClientIP {
		seen["ClientIP affinity"]++
	}
	if len(s.Ports) > 1 {
		seen["several ports"]++
	}
	for _, p := range s.Ports {
		seen[string(p.Protocol)]++
	}
	switch len(s.Endpoints) {
	case 0:
		seen["no endpoints"]++
	case 20:
		seen["20 endpoints"]++
	}
	for _, e := range s.Endpoints {
		switch {
		case e.Ready:
			seen["ready"]++
		case e.Serving && e.Terminating:
			seen["serving terminating"]++
		case e.Terminating:
			seen["terminating not serving"]++
		default:
			seen["not ready"]++
		}
		if e.Node == "node-1" {
			seen["local"]++
		} else {
			seen["remote"]++
		}
	}
}
