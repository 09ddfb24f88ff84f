package verifytrace

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
)

// TestCorpus checks the tracers against the kernel on every dump of the
// corpus: testdata/*.rules (iptables-save or ip6tables-save, with
// DUMP.ipsets when it uses sets, and DUMP.hostnft when it is
// iptables-nft-save next to other nftables tables) and testdata/*.nft (nft
// list ruleset: kube-proxy's nftables mode for IPv4 and, with family=ip6,
// IPv6, and a host firewall), with new and established packets.
func TestCorpus(t *testing.T) {
	labtest.RequireRoot(t)
	for _, tool := range []string{"iptables-legacy-restore", "ip6tables-legacy-restore", "iptables-nft-restore", "nft", "conntrack", "stdbuf"} {
		labtest.RequireBinary(t, tool)
	}
	files, err := filepath.Glob("testdata/*.[rn][uf][lt]*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var mu sync.Mutex
	total := 0
	// The dumps run two at a time (go test's -parallel is GOMAXPROCS):
	// each has its own namespaces, and most of a dump's time is spent in
	// the kernel tools each packet runs, which a second CPU overlaps.
	// 700 new packets a dump (plus the established ones) keep the corpus
	// above 10,000 packets in about two thirds of make test's time for
	// 1,100; `svclab verify-trace --packets N` checks more.
	t.Run("dumps", func(t *testing.T) {
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				res, err := VerifyFile(f, Options{Packets: 700, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				total += res.Packets
				mu.Unlock()
				t.Logf("%s: %d packets (%d established), %d agreed, %d unknown, %d disagreed", f, res.Packets, res.Established, res.Agreed, res.Unknown, res.Disagreed)
				if res.Disagreed > 0 {
					t.Errorf("%d packets disagree, e.g.\n%s", res.Disagreed, res.Examples[0])
				}
			})
		}
	})
	t.Logf("%d packets over %d dumps", total, len(files))
	if total < 10000 || len(files) < 8 {
		t.Errorf("the corpus check needs at least 10,000 packets over 8 dumps; got %d over %d", total, len(files))
	}
}
