package nftables

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that whatever it
// accepts prints to a transaction that parses again to the same ruleset.
// Seeds: testdata/fuzz/FuzzParse plus the rendered shapes and listings.
func FuzzParse(f *testing.F) {
	f.Add(renderShapes(f))
	for _, name := range []string{"listing-shapes.txt", "listing-affinity-set.txt"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		rs, err := ParseString(src)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := rs.WriteTransaction(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ParseString(buf.String())
		if err != nil {
			t.Fatalf("reparse of printed ruleset failed: %v\n%s", err, buf.String())
		}
		var buf2 bytes.Buffer
		if err := again.WriteTransaction(&buf2); err != nil {
			t.Fatal(err)
		}
		if buf.String() != buf2.String() {
			t.Fatalf("printing is not stable:\n%s\n---\n%s", buf.String(), buf2.String())
		}
	})
}
