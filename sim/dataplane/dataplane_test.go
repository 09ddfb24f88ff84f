package dataplane

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

func TestCatalog(t *testing.T) {
	seen := map[Name]bool{}
	for _, d := range All() {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Summary == "" || d.Sync == "" || d.Kernel.Module == "" || d.Lookup == "" || d.Colour.A == 0 {
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		}
		if d.Lookup == NotModelled && d.LookupNote == "" {
			t.Errorf("%s: not modelled by the cost model, but LookupNote does not say why", d.Name)
		}
		if d.Lookup != NotModelled && d.Mode == ModeNone {
			t.Errorf("%s: the cost model sizes a kube-proxy payload, but it loads none", d.Name)
		}
		if d.Mode != ModeNone && !slices.Contains(Modes(), d.Mode) {
			t.Errorf("%s: unknown mode %q", d.Name, d.Mode)
		}
		if (len(d.Kernel.Features) == 0) == !d.Kernel.BPF {
			t.Errorf("%s: doctor checks it neither by kernel features nor by the BPF probes (or both)", d.Name)
		}
		for _, f := range d.Kernel.Features {
			if _, ok := FeatureOf(f); !ok {
				t.Errorf("%s: kernel feature %q is not in Features", d.Name, f)
			}
		}
		if d.Mode != ModeNone && (d.Version.Key == "" || len(d.Version.Argv) == 0) {
			t.Errorf("%s: no version command for the tool that loads its payload", d.Name)
		}
		if len(d.Tools) > 0 && len(d.Packages) == 0 {
			t.Errorf("%s needs tools but names no package that provides them", d.Name)
		}
	}
}

// TestColoursDiffer: a plot's legend tells every dataplane apart.
func TestColoursDiffer(t *testing.T) {
	seen := map[[4]uint8]Name{}
	for _, d := range All() {
		c := [4]uint8{d.Colour.R, d.Colour.G, d.Colour.B, d.Colour.A}
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s share colour %v", other, d.Name, d.Colour)
		}
		seen[c] = d.Name
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
		if len(ByMode(m)) == 0 {
			t.Errorf("no dataplane loads mode %s", m)
		}
	}
	if _, err := ParseMode("iptables-nft"); err == nil {
		t.Error("ParseMode accepted a dataplane name")
	}
}

func TestParseAndTools(t *testing.T) {
	tests := []struct {
		name    string
		wantErr bool
	}{{"iptables-legacy", false}, {"nftables", false}, {"ebpf-sock", false}, {"", true}, {"iptables", true}}
	for _, tc := range tests {
		_, err := Parse(tc.name)
		if (err != nil) != tc.wantErr {
			t.Errorf("Parse(%q) err=%v, want error %v", tc.name, err, tc.wantErr)
		}
	}
	got := ToolsFor([]string{"iptables-legacy", "ipvs", "iptables-legacy", "bogus"})
	want := []string{"iptables-legacy", "iptables-legacy-restore", "iptables-legacy-save", "ipset"}
	if !slices.Equal(got, want) {
		t.Errorf("ToolsFor = %v, want %v", got, want)
	}
}

// TestIsALeaf: every package may read the registry, so it imports no
// svclab package.
func TestIsALeaf(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/svclab/svclab/") {
			t.Errorf("sim/dataplane imports %s", imp)
		}
	}
}

func TestUpNames(t *testing.T) {
	want := []string{"iptables-legacy", "iptables-nft", "nftables"}
	if got := UpNames(); !slices.Equal(got, want) {
		t.Errorf("UpNames = %v, want %v", got, want)
	}
}
