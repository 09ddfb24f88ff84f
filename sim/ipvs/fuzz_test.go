package ipvs

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseIPVSAdm: no panics, and what parses prints to text that parses
// to the same print. Seeds: testdata/fuzz/FuzzParseIPVSAdm and the
// testdata file.
func FuzzParseIPVSAdm(f *testing.F) {
	f.Add(string(readTestdata(f, "ipvsadm-Sn.txt")))
	f.Fuzz(func(t *testing.T, text string) {
		tab, err := ParseIPVSAdm(strings.NewReader(text))
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		_, _ = tab.WriteTo(&a)
		back, err := ParseIPVSAdm(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("printed table does not parse: %v\n%s", err, a.String())
		}
		_, _ = back.WriteTo(&b)
		if a.String() != b.String() {
			t.Fatalf("round trip differs:\n%s\n%s", a.String(), b.String())
		}
	})
}

// FuzzParseIPSetSave: no panics; what parses prints to text that parses.
func FuzzParseIPSetSave(f *testing.F) {
	f.Add(string(readTestdata(f, "ipset-save.txt")))
	f.Fuzz(func(t *testing.T, text string) {
		sets, err := ParseIPSetSave(strings.NewReader(text))
		if err != nil {
			return
		}
		var a bytes.Buffer
		_, _ = sets.WriteTo(&a)
		if _, err := ParseIPSetSave(bytes.NewReader(a.Bytes())); err != nil {
			t.Fatalf("printed sets do not parse: %v\n%s", err, a.String())
		}
	})
}
