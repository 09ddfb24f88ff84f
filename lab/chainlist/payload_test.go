package chainlist

import (
	"context"
	"os"
	"testing"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/results"
)

// payloadVariable names the iptables-restore payload TestPayloadWalkPrice
// prices.
const payloadVariable = "SVCLAB_CHAINLIST_PAYLOAD"

// TestPayloadWalkPrice prices the chain-list walk of the payload named by
// $SVCLAB_CHAINLIST_PAYLOAD as svclab plan prices a full sync's, on steps
// Measure times now on the full layout (up to twice the payload's longest
// list): results/iptables-nft-restore/declarations-ab.sh runs it in turn
// with iptables-nft-restore's own restore of that payload. It is a
// measurement of a file of the caller's, skipped without the variable.
func TestPayloadWalkPrice(t *testing.T) {
	path := os.Getenv(payloadVariable)
	if path == "" {
		t.Skipf("a measurement: set %s to an iptables-restore payload to price its chain-list walk", payloadVariable)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := iptables.ChainListCompares(f)
	f.Close()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	layout := Layouts[0]
	layout.Lengths = nil
	for _, n := range Layouts[0].Lengths {
		if n <= 2*w.Longest {
			layout.Lengths = append(layout.Lengths, n)
		}
	}
	steps, err := Measure(context.Background(), []Layout{layout}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	price, err := cost.PriceChainListWalk(steps, results.ChainListFull, &w)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d compares (%d warm), list up to %d chains: priced %.2f s [%.2f, %.2f]", path, w.Compares, w.Warm, w.Longest, price.Value, price.Lo, price.Hi)
}
