package runner_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/results"
)

// TestChainListWalkInMeta checks that a sweep loading iptables-nft records
// the machine's chain-list walk in meta.json, that one without it does
// not, and that a walk that fails stops the run before it measures.
func TestChainListWalkInMeta(t *testing.T) {
	withNFT := fakeSweepNFT()
	for _, tt := range []struct {
		name     string
		scenario string
		fail     error
		want     []results.ChainListStep
	}{
		{"iptables-nft", withNFT, nil, labfake.FakeChainListWalk()},
		{"no iptables-nft", fakeSweep, nil, nil},
		{"the walk fails", withNFT, errors.New("walk failed"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			meta, dir := runMachineWalk(t, tt.scenario, &labfake.Machine{ChainListWalkErr: tt.fail}, tt.fail, "chain-list walk")
			if meta == nil {
				return
			}
			if !slices.Equal(meta.ChainListWalk, tt.want) {
				t.Errorf("meta.json chain_list_walk = %v, want %v", meta.ChainListWalk, tt.want)
			}
			// The walk is timed again at the end, into results.jsonl.
			again := records(t, dir)[results.TypeChainListWalk]
			if tt.want == nil && len(again) != 0 || tt.want != nil && (len(again) != 1 || !slices.Equal(again[0].ChainListWalk, tt.want)) {
				t.Errorf("chain_list_walk records %v, want one with %v after a first walk, none without", again, tt.want)
			}
		})
	}
}

// TestChainListWalkInterrupted checks that a run interrupted during the
// walk stops as an interrupted run does at any step: meta.json without the
// walk, the interrupted record, ErrInterrupted.
func TestChainListWalkInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out, _, err := runOn(t, ctx, loadScenarioText(t, fakeSweepNFT()), &labfake.Machine{})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	meta, merr := results.ReadMeta(out.Dir)
	if merr != nil || meta.ChainListWalk != nil {
		t.Errorf("meta.json %+v (%v): want one without a walk", meta, merr)
	}
	if recs := records(t, out.Dir); len(recs[results.TypeInterrupted]) != 1 || len(recs[results.TypeChainListWalk]) != 0 {
		t.Errorf("records %v: want one interrupted and no walk timed again", recs)
	}
}

// fakeSweepNFT is fakeSweep loading iptables-nft alone.
func fakeSweepNFT() string {
	return strings.Replace(fakeSweep, "[iptables-legacy, nftables]", "[iptables-nft]", 1)
}
