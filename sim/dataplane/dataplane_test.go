package dataplane

import (
	"slices"
	"testing"
)

func TestCatalog(t *testing.T) {
	seen := map[Name]bool{}
	for _, d := range All() {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Summary == "" || d.Sync == "" || d.KernelFeature == "" {
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		}
		if len(d.Tools) > 0 && len(d.Packages) == 0 {
			t.Errorf("%s needs tools but names no package that provides them", d.Name)
		}
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
