package render

import "testing"

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
		{"1.36", "", true},
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

func TestKubeProxyVersionLayouts(t *testing.T) {
	tests := []struct {
		v                 KubeProxyVersion
		direct, valid     bool
		alwaysRandomFully bool
	}{
		{"", true, true, true},
		{KubeProxy137, true, true, true},
		{KubeProxy135, false, true, false},
		{"v1.35", false, false, true},
		{"1.35.4", false, false, true},
	}
	for _, tt := range tests {
		if got := tt.v.NFTablesDirectDNAT(); got != tt.direct && tt.valid {
			t.Errorf("%q.NFTablesDirectDNAT() = %v", tt.v, got)
		}
		if got := tt.v.AlwaysRandomFully(); got != tt.alwaysRandomFully && tt.valid {
			t.Errorf("%q.AlwaysRandomFully() = %v", tt.v, got)
		}
		if err := tt.v.Validate(); (err == nil) != tt.valid {
			t.Errorf("%q.Validate() = %v, want valid %v", tt.v, err, tt.valid)
		}
	}
}
