package runner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/sim/results"
)

// TestChainDumpWalkInMeta checks that a sweep loading nftables with sync
// probes records the machine's chain dump walk in meta.json, that one
// without probes or without nftables does not, and that a walk that fails
// stops the run before it measures.
func TestChainDumpWalkInMeta(t *testing.T) {
	probed := fakeSweep + "  syncProbe: [500]\n"
	legacyOnly := strings.Replace(probed, "[iptables-legacy, nftables]", "[iptables-legacy]", 1)
	for _, tt := range []struct {
		name     string
		scenario string
		fail     error
		want     []results.ChainListStep
	}{
		{"nftables with sync probes", probed, nil, labfake.FakeChainDumpWalk()},
		{"no sync probe", fakeSweep, nil, nil},
		{"no nftables", legacyOnly, nil, nil},
		{"the walk fails", probed, errors.New("dump failed"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			meta, _ := runMachineWalk(t, tt.scenario, &labfake.Machine{ChainDumpWalkErr: tt.fail}, tt.fail, "chain dump walk")
			if meta != nil && !slices.Equal(meta.ChainDumpWalk, tt.want) {
				t.Errorf("meta.json chain_dump_walk = %v, want %v", meta.ChainDumpWalk, tt.want)
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
