package nftables

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// FuzzParseJSON feeds arbitrary JSON to ParseJSON: no panics, and what it
// accepts prints back to text that parses.
func FuzzParseJSON(f *testing.F) {
	f.Add(`{"nftables":[{"table":{"family":"inet","name":"f"}},{"chain":{"family":"inet","table":"f","name":"input","type":"filter","hook":"input","prio":0,"policy":"drop"}},{"rule":{"family":"inet","table":"f","chain":"input","expr":[{"match":{"op":"==","left":{"meta":{"key":"iifname"}},"right":"lo"}},{"accept":null}]}}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		rs, err := ParseJSON(strings.NewReader(doc))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := rs.WriteTransaction(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseString(b.String()); err != nil {
			t.Fatalf("printed JSON ruleset does not parse: %v\n%s", err, b.String())
		}
	})
}
