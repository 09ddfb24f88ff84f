package iptables

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// Fixed part of every payload with DefaultOptions: filter has 6 chains and 4
// rules (KUBE-FIREWALL + 3 KUBE-FORWARD), nat has 4 chains and 5 rules
// (3 KUBE-POSTROUTING, KUBE-MARK-MASQ, the nodeports tail rule).
const fixedRules, fixedChains = 9, 10

func TestRuleAndChainCountsPerServiceShape(t *testing.T) {
	eps := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("10.180.%d.%d", i/250, i%250+1)
		}
		return out
	}
	tests := []struct {
		name       string
		svc        model.Service
		rules      int // beyond the fixed part
		chains     int
		wantLarge  bool
		largeRules int
	}{
		// kube-proxy: 1 KUBE-SERVICES + (1 + E) SVC + 2E SEP = 3E+2 rules in 1+E chains.
		{name: "1 endpoint", svc: svc("ns", "a", "10.96.0.10", eps(1)...), rules: 5, chains: 2},
		{name: "2 endpoints", svc: svc("ns", "a", "10.96.0.10", eps(2)...), rules: 8, chains: 3},
		{name: "3 endpoints", svc: svc("ns", "a", "10.96.0.10", eps(3)...), rules: 11, chains: 4},
		{name: "1000 endpoints", svc: svc("ns", "a", "10.96.0.10", eps(1000)...), rules: 3002, chains: 1001},
		// Zero endpoints: one filter REJECT, no nat chains.
		{name: "no endpoints", svc: svc("ns", "a", "10.96.0.10"), rules: 1, chains: 0},
		// Affinity adds one recent --rcheck rule per endpoint.
		{name: "affinity 2", svc: withAffinity(svc("ns", "a", "10.96.0.10", eps(2)...)), rules: 10, chains: 3},
		// NodePort adds a KUBE-NODEPORTS rule and a 2-rule KUBE-EXT chain.
		{name: "nodeport 2", svc: withNodePort(svc("ns", "a", "10.96.0.10", eps(2)...), 30080), rules: 11, chains: 4},
		// NodePort without endpoints: REJECT in KUBE-SERVICES and KUBE-EXTERNAL-SERVICES.
		{name: "nodeport none", svc: withNodePort(svc("ns", "a", "10.96.0.10"), 30080), rules: 2, chains: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stats, err := Render(io.Discard, testModel(tt.svc), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if stats.Rules != fixedRules+tt.rules || stats.Chains != fixedChains+tt.chains {
				t.Fatalf("rules %d chains %d, want %d and %d", stats.Rules, stats.Chains, fixedRules+tt.rules, fixedChains+tt.chains)
			}
		})
	}
}

func TestLargeClusterModeDropsEndpointComments(t *testing.T) {
	eps := make([]string, 0, 1001)
	for i := 0; i < 1001; i++ {
		eps = append(eps, fmt.Sprintf("10.180.%d.%d", i/250, i%250+1))
	}
	small := renderString(t, testModel(svc("ns", "a", "10.96.0.10", eps[:1000]...)), DefaultOptions())
	large := renderString(t, testModel(svc("ns", "a", "10.96.0.10", eps...)), DefaultOptions())
	if got := countSubstr(small, "-m comment --comment ns/a:p80 -s"); got != 1000 {
		t.Fatalf("1000 endpoints: %d commented SEP rules, want 1000", got)
	}
	if got := countSubstr(large, "-m comment --comment ns/a:p80 -s"); got != 0 {
		t.Fatalf("1001 endpoints: %d commented SEP rules, want 0 (large-cluster mode)", got)
	}
	if got := countSubstr(large, `"ns/a:p80 cluster IP"`); got != 2 {
		t.Fatalf("large-cluster mode must keep the cluster IP comments, got %d", got)
	}
}

func TestProbabilityFormat(t *testing.T) {
	// From kube-proxy's TestComputeProbability.
	tests := map[int]string{1: "1.0000000000", 2: "0.5000000000", 3: "0.3333333333", 10: "0.1000000000",
		1000: "0.0010000000", 100000: "0.0000100000", 100001: "0.0000099999"}
	for n, want := range tests {
		if got := Probability(n); got != want {
			t.Errorf("Probability(%d) = %s, want %s", n, got, want)
		}
	}
}

func countSubstr(s, sub string) int {
	n := 0
	for i := 0; ; {
		j := indexFrom(s, sub, i)
		if j < 0 {
			return n
		}
		n++
		i = j + len(sub)
	}
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestPartialSyncWritesOnlyUpdatedChains(t *testing.T) {
	m := testModel(svc("ns", "a", "10.96.0.10", "10.180.0.1", "10.180.0.2"), svc("ns", "b", "10.96.0.11", "10.180.0.3", "10.180.0.4", "10.180.0.5"))
	var full, partial bytes.Buffer
	fs, err := Render(&full, m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := RenderPartial(&partial, m, DefaultOptions(), func(i int) bool { return i == 1 })
	if err != nil {
		t.Fatal(err)
	}
	// Service a (2 endpoints) is skipped: its SVC chain (3 rules) and 2 SEP
	// chains (4 rules) are neither declared nor written; its KUBE-SERVICES
	// rule stays.
	if fs.Rules-ps.Rules != 7 || fs.Chains-ps.Chains != 3 {
		t.Fatalf("partial sync wrote %d rules in %d chains, full %d in %d", ps.Rules, ps.Chains, fs.Rules, fs.Chains)
	}
	if !strings.Contains(partial.String(), "cluster IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-SVC-") {
		t.Fatal("partial sync lost the skipped service's KUBE-SERVICES rule")
	}
}
