package render

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseKubeProxyVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    KubeProxyVersion
		wantErr bool
	}{
		{"", LatestKubeProxy, false},
		{"1.37", KubeProxy137, false},
		{"v1.37.2", KubeProxy137, false},
		{"1.35.4", KubeProxy135, false},
		{"v1.35", KubeProxy135, false},
		{"1.33", "", true},
		{"1.37.2.1", "", true},
		{"latest", "", true},
	}
	for _, tt := range tests {
		got, err := ParseKubeProxyVersion(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseKubeProxyVersion(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestKubeProxyReleases checks the table's shape: every row parses back
// to itself (as MAJOR.MINOR and as its patch release), rows are oldest
// first and unique, the newest is LatestKubeProxy, and the supported list
// the messages print names every row.
func TestKubeProxyReleases(t *testing.T) {
	rows := KubeProxyReleases()
	if len(rows) == 0 || rows[len(rows)-1].Version != LatestKubeProxy {
		t.Fatalf("rows %v: the last must be LatestKubeProxy %q", rows, LatestKubeProxy)
	}
	msg := SupportedKubeProxyVersions()
	for i, r := range rows {
		if i > 0 && !older(rows[i-1].Version, r.Version) {
			t.Errorf("row %d (%s) is not newer than row %d (%s)", i, r.Version, i-1, rows[i-1].Version)
		}
		if !strings.HasPrefix(r.Patch, "v"+string(r.Version)+".") {
			t.Errorf("row %s: patch %q is not a release of it", r.Version, r.Patch)
		}
		for _, in := range []string{string(r.Version), r.Patch} {
			if v, err := ParseKubeProxyVersion(in); err != nil || v != r.Version {
				t.Errorf("ParseKubeProxyVersion(%q) = %q, %v; want %q", in, v, err, r.Version)
			}
		}
		if err := r.Version.Validate(); err != nil {
			t.Errorf("row %s: %v", r.Version, err)
		}
		if r.Version.Release() != r {
			t.Errorf("%s.Release() = %+v, want its row %+v", r.Version, r.Version.Release(), r)
		}
		if !strings.Contains(msg, string(r.Version)) {
			t.Errorf("SupportedKubeProxyVersions() = %q misses %s", msg, r.Version)
		}
	}
	if got := KubeProxyVersion("").Release(); got.Version != LatestKubeProxy {
		t.Errorf(`"".Release() = %+v, want LatestKubeProxy's row`, got)
	}
}

// older compares "MAJOR.MINOR" numerically.
func older(a, b KubeProxyVersion) bool {
	var am, an, bm, bn int
	if _, err := fmt.Sscanf(string(a), "%d.%d", &am, &an); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(string(b), "%d.%d", &bm, &bn); err != nil {
		return false
	}
	return am < bm || am == bm && an < bn
}

func TestKubeProxyVersionFacts(t *testing.T) {
	tests := []struct {
		v                 KubeProxyVersion
		direct, localhost bool
		alwaysRandomFully bool
		valid             bool
	}{
		{"", true, true, true, true},
		{KubeProxy137, true, true, true, true},
		{KubeProxy135, false, false, false, true},
		{"1.34", false, false, false, true},
		{"v1.35", false, false, false, false},
		{"1.35.4", false, false, false, false},
		{"1.33", false, false, false, false},
	}
	for _, tt := range tests {
		if got := tt.v.NFTablesDirectDNAT(); got != tt.direct && tt.valid {
			t.Errorf("%q.NFTablesDirectDNAT() = %v", tt.v, got)
		}
		if got := tt.v.NFTablesLocalhostNodePorts(); got != tt.localhost && tt.valid {
			t.Errorf("%q.NFTablesLocalhostNodePorts() = %v", tt.v, got)
		}
		if got := tt.v.AlwaysRandomFully(); got != tt.alwaysRandomFully && tt.valid {
			t.Errorf("%q.AlwaysRandomFully() = %v", tt.v, got)
		}
		if err := tt.v.Validate(); (err == nil) != tt.valid {
			t.Errorf("%q.Validate() = %v, want valid %v", tt.v, err, tt.valid)
		}
	}
}
