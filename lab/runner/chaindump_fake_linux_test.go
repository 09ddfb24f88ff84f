package runner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/sim/results"
)

// TestMachineWalksInMeta checks that a sweep loading nftables with sync
// probes records the machine's chain dump walk and anonymous-set walks in
// meta.json, that one without probes or without nftables records
// neither, and that a walk that fails stops the run before it measures.
func TestMachineWalksInMeta(t *testing.T) {
	probed := fakeSweep + "  syncProbe: [500]\n"
	legacyOnly := strings.Replace(probed, "[iptables-legacy, nftables]", "[iptables-legacy]", 1)
	dumpFails, setsFail := errors.New("dump failed"), errors.New("load failed")
	for _, tt := range []struct {
		name     string
		scenario string
		machine  *labfake.Machine
		fail     error
		word     string
		walked   bool
	}{
		{"nftables with sync probes", probed, &labfake.Machine{}, nil, "", true},
		{"no sync probe", fakeSweep, &labfake.Machine{}, nil, "", false},
		{"no nftables", legacyOnly, &labfake.Machine{}, nil, "", false},
		{"the dump walk fails", probed, &labfake.Machine{ChainDumpWalkErr: dumpFails}, dumpFails, "chain dump walk", false},
		{"the set walks fail", probed, &labfake.Machine{AnonymousSetWalkErr: setsFail}, setsFail, "anonymous set walks", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			meta, _ := runMachineWalk(t, tt.scenario, tt.machine, tt.fail, tt.word)
			if meta == nil {
				return
			}
			var dump []results.ChainListStep
			var sets []results.AnonymousSetStep
			if tt.walked {
				dump, sets = labfake.FakeChainDumpWalk(), labfake.FakeAnonymousSetWalk()
			}
			if !slices.Equal(meta.ChainDumpWalk, dump) || !slices.Equal(meta.AnonymousSetWalk, sets) {
				t.Errorf("meta.json chain_dump_walk = %v, anonymous_set_walk = %v; want %v and %v", meta.ChainDumpWalk, meta.AnonymousSetWalk, dump, sets)
			}
		})
	}
}

// runMachineWalk runs scenario on machine m, which times a walk of the
// machine at the run's start. With fail set, the run must stop with fail's
// error, naming the walk (word), before it writes a record, and it returns
// nil; otherwise it returns the run's meta.json and directory.
func runMachineWalk(t *testing.T, scenario string, m *labfake.Machine, fail error, word string) (*results.Meta, string) {
	t.Helper()
	out, _, err := runOn(t, t.Context(), loadScenarioText(t, scenario), m)
	if fail != nil {
		if !errors.Is(err, fail) || !strings.Contains(err.Error(), word) {
			t.Fatalf("error %v, want the walk's, named", err)
		}
		if recs, _, _ := results.ReadRecords(out.Dir); len(recs) > 0 {
			t.Fatalf("the failed run wrote %d records", len(recs))
		}
		return nil, out.Dir
	}
	if err != nil {
		t.Fatal(err)
	}
	meta, err := results.ReadMeta(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return meta, out.Dir
}
