package verifytrace

import (
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
)

// TestCorpus checks the tracer against the kernel on every dump of the
// corpus (testdata/*.rules).
func TestCorpus(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "iptables-legacy-restore")
	files, err := filepath.Glob("testdata/*.rules")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	total := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := VerifyFile(f, Options{Packets: 1300, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			total += res.Packets
			t.Logf("%s: %d packets, %d agreed, %d unknown, %d disagreed", f, res.Packets, res.Agreed, res.Unknown, res.Disagreed)
			if res.Disagreed > 0 {
				t.Errorf("%d packets disagree, e.g.\n%s", res.Disagreed, res.Examples[0])
			}
		})
	}
	t.Logf("%d packets over %d dumps", total, len(files))
}
