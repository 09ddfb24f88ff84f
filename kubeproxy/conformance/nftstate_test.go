package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"sigs.k8s.io/knftables"

	simnft "github.com/svclab/svclab/sim/nftables"
)

// TestTransactionStateMatchesKnftablesFake is the differential test of
// sim/nftables.TransactionState against its oracle, knftables' Fake (the
// version kube-proxy vendors): random transactions of the forms kube-proxy
// writes (objects, rules that look up sets and maps and jump to chains,
// set and verdict-map elements with comments, flushes, deletions of
// flushed and unreferenced chains, sets and elements) are run by the Fake
// and applied, as the text knftables writes for them, to a
// TransactionState; after each one both must accept or both reject it,
// and their dumps must be equal byte for byte.
func TestTransactionStateMatchesKnftablesFake(t *testing.T) {
	accepted, rejected := 0, 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		fake := knftables.NewFake(knftables.IPv4Family, "kube-proxy")
		var st simnft.TransactionState
		for i := range 8 {
			tx := fake.NewTransaction()
			randomTransaction(r, tx, i == 0)
			text := tx.String() // before Run, which writes handles into tx
			fakeErr := fake.Run(context.Background(), tx)
			stErr := st.Apply(text)
			if (fakeErr == nil) != (stErr == nil) {
				t.Fatalf("seed %d transaction %d: Fake error %v, TransactionState error %v\n%s", seed, i, fakeErr, stErr, text)
			}
			if fakeErr == nil {
				accepted++
			} else {
				rejected++
			}
			if got, want := st.Dump(), fake.Dump(); got != want {
				t.Fatalf("seed %d transaction %d: dumps differ\n%s\nTransactionState:\n%s\nFake:\n%s", seed, i, text, got, want)
			}
		}
	}
	t.Logf("%d transactions accepted, %d rejected by both", accepted, rejected)
	if accepted == 0 || rejected == 0 {
		t.Errorf("the generator must make both valid and invalid transactions")
	}
}

// randomTransaction adds a few random operations to tx; the first one of a
// run starts with the table, as kube-proxy's do, later ones sometimes
// reference what does not exist (both must then reject the transaction).
func randomTransaction(r *rand.Rand, tx *knftables.Transaction, first bool) {
	if first || r.IntN(4) > 0 {
		tx.Add(&knftables.Table{Comment: knftables.PtrTo("rules for kube-proxy")})
	}
	if first {
		tx.Add(&knftables.Chain{Name: "services"})
		tx.Add(&knftables.Set{Name: "cluster-ips", Type: "ipv4_addr"})
		tx.Add(&knftables.Map{Name: "service-ips", Type: "ipv4_addr : verdict"})
		for i := range 3 {
			tx.Add(&knftables.Chain{Name: fmt.Sprintf("svc-%d", i)})
		}
	}
	leaf := func() string { return fmt.Sprintf("svc-%d", r.IntN(3)) }
	ip := func() string { return fmt.Sprintf("10.0.0.%d", r.IntN(4)) } // 10.0.0.3 maps to svc-3, never added
	for range 1 + r.IntN(6) {
		switch r.IntN(9) {
		case 0:
			tx.Add(&knftables.Chain{Name: "services", Comment: randomComment(r)})
			tx.Add(&knftables.Set{Name: "cluster-ips", Type: "ipv4_addr"})
			tx.Add(&knftables.Map{Name: "service-ips", Type: "ipv4_addr : verdict"})
		case 1:
			tx.Add(&knftables.Chain{Name: leaf()})
		case 2:
			tx.Add(&knftables.Rule{Chain: "services", Rule: "ip daddr @cluster-ips jump " + leaf()})
		case 3:
			tx.Add(&knftables.Rule{Chain: "services", Rule: "ip daddr vmap @service-ips", Comment: randomComment(r)})
		case 4:
			tx.Add(&knftables.Rule{Chain: leaf(), Rule: "counter"})
		case 5:
			tx.Add(&knftables.Element{Set: "cluster-ips", Key: []string{ip()}, Comment: randomComment(r)})
		case 6:
			k := ip() // the value is the key's, as re-adding with another is an error only for the kernel
			tx.Add(&knftables.Element{Map: "service-ips", Key: []string{k}, Value: []string{"goto svc-" + k[len(k)-1:]}, Comment: randomComment(r)})
		case 7:
			tx.Delete(&knftables.Element{Set: "cluster-ips", Key: []string{ip()}})
		case 8: // unreference a leaf chain, then delete it
			c := leaf()
			tx.Flush(&knftables.Chain{Name: "services"})
			tx.Flush(&knftables.Map{Name: "service-ips"})
			tx.Flush(&knftables.Chain{Name: c})
			tx.Delete(&knftables.Chain{Name: c})
		}
	}
}

func randomComment(r *rand.Rand) *string {
	if r.IntN(2) == 0 {
		return nil
	}
	return knftables.PtrTo(fmt.Sprintf("ns%d/svc:p", r.IntN(3)))
}
