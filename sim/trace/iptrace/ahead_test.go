package iptrace

import (
	"fmt"
	"testing"
)

// TestServiceLookAhead checks the layout the look-ahead relies on: each
// kube-proxy service chain's block is its own rules and its endpoint
// chains' (4 + 3×2 rules over 4 chains), and the destination index slot of
// each cluster IP carries its service chain's block.
func TestServiceLookAhead(t *testing.T) {
	tr := mustTracer(t, parseDump(t, generateServices(50, 3)), Options{})
	nat := tr.tables[tableNat]
	index := nat.chains[nat.chain("KUBE-SERVICES")].index
	for i := range 50 {
		svc := nat.chain(fmt.Sprintf("KUBE-SVC-%016X", i))
		a := nat.aheads[svc]
		if a.chain != svc || a.n != 10 || a.chainN != 4 || a.lo != nat.slabAt[svc] || a.chainLo != svc {
			t.Fatalf("service %d: look-ahead %+v, want its 10 rules over chains %d..%d from slab %d", i, a, svc, svc+3, nat.slabAt[svc])
		}
		_, slot := index.firstAt4(addr4(serviceIP(i)), 0)
		if slot == nil || slot.ahead != a {
			t.Fatalf("service %d: index slot %+v, want look-ahead %+v", i, slot, a)
		}
	}
	if a := nat.aheads[nat.chain("KUBE-SERVICES")]; a.chain != -1 {
		t.Errorf("KUBE-SERVICES has look-ahead %+v, want none (it does not fan out)", a)
	}
}

// TestMemoizableStages checks which stages the memo replays: on a
// kube-proxy dump whose services all have endpoints, filter FORWARD,
// INPUT, OUTPUT and nat POSTROUTING; never nat PREROUTING (statistic
// rules, destination index); filter FORWARD not once a REJECT rule tests a
// destination.
func TestMemoizableStages(t *testing.T) {
	text := generateServices(20, 3)
	for _, tc := range []struct {
		name string
		text string
		want map[stage]bool
	}{
		{"all services have endpoints", text, map[stage]bool{
			stageNatPrerouting: false, stageFilterForward: true, stageFilterInput: true,
			stageFilterOutput: true, stageNatPostrouting: true, stageNatOutput: false}},
		{"services without endpoints", withRejects(text, 3), map[stage]bool{
			stageNatPrerouting: false, stageFilterForward: false, stageFilterInput: true,
			stageFilterOutput: false, stageNatPostrouting: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTracer(t, parseDump(t, tc.text), Options{})
			for st, want := range tc.want {
				if got := tr.memoOK[st]; got != want {
					t.Errorf("stage %s %s: memoized %v, want %v", tableNames[stageHooks[st].table], stageHooks[st].chain, got, want)
				}
			}
		})
	}
}
