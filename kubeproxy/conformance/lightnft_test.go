package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/render"
)

// TestLightNFTMatchesFake: the driver's record-only nftables table
// (render mode's default) makes kube-proxy write exactly the transactions
// it writes over knftables' validating Fake, which also checks that every
// transaction applies.
func TestLightNFTMatchesFake(t *testing.T) {
	if !enabled(kube.ModeNFTables) {
		t.Skip("nftables not in SVCLAB_CONFORMANCE_MODES")
	}
	n := clusters(t)
	for seed := range uint64(n) {
		tc := Generate(seed, modeFeatures[kube.ModeNFTables])
		ms := models(tc, families(tc)[len(families(tc))-1])
		req, err := kube.NewRequest(kube.ModeNFTables, render.Config{Flags: tc.Flags}, ms[0], ms[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		run := func(validating bool) ([]kube.Sync, error) {
			req.ValidatingFake = validating
			var out []kube.Sync
			err := driver.Run(context.Background(), req, true, nil, func(s kube.Sync) error {
				if s.Error != "" {
					return fmt.Errorf("sync %d: %s", s.Index, s.Error)
				}
				out = append(out, s)
				return nil
			})
			return out, err
		}
		light, err := run(false)
		if err != nil {
			t.Fatalf("case %d, record-only table: %v", seed, err)
		}
		fake, err := run(true)
		if err != nil {
			t.Fatalf("case %d, knftables Fake: %v", seed, err)
		}
		for i := range fake {
			if d := diffText(canonicalTx(fake[i].Payload), canonicalTx(light[i].Payload)); d != "" {
				t.Fatalf("case %d sync %d: the record-only table changes kube-proxy's transaction (--- Fake, +++ record-only):\n%s", seed, i, d)
			}
		}
	}
	t.Logf("%d clusters: kube-proxy %s writes the same transactions over both", n, driver.Version())
}
