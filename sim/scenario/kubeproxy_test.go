package scenario

import (
	"maps"
	"strings"
	"testing"
)

func TestKubeProxyDefaultsAndOverride(t *testing.T) {
	sc, err := Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	if sc.KubeProxy.Engine != "native" || sc.KubeProxy.Version != "1.37" {
		t.Fatalf("%+v", sc.KubeProxy)
	}
	s2, err := sc.WithKubeProxy("kube-proxy", "1.35")
	if err != nil || s2.KubeProxy.Version != "1.35" || s2.Hash() != sc.Hash() {
		t.Fatalf("%v %+v", err, s2.KubeProxy)
	}
	if _, err := sc.WithKubeProxy("bogus", ""); err == nil {
		t.Fatal("bogus engine accepted")
	}
}

// TestFeatureGates: kubeProxy.featureGates is read into KubeProxy,
// validated (known gate, in the scenario's release, not with the
// kube-proxy engine) with the field named, and render's override of it
// changes the hash.
func TestFeatureGates(t *testing.T) {
	const base = "name: g\nsynthetic: {services: 1}\n"
	tests := []struct {
		name, kubeProxy, wantErr string
		on                       bool
	}{
		{"absent", "", "", false},
		{"on", "kubeProxy:\n  featureGates: {KubeProxyNFTablesLocalhostNodePorts: true}\n", "", true},
		{"off", "kubeProxy:\n  featureGates: {KubeProxyNFTablesLocalhostNodePorts: false}\n", "", false},
		{"unknown", "kubeProxy:\n  featureGates: {Bogus: true}\n", `kubeProxy.featureGates.Bogus: unknown feature gate "Bogus"`, false},
		{"not in v1.35", "kubeProxy:\n  version: \"1.35\"\n  featureGates: {KubeProxyNFTablesLocalhostNodePorts: true}\n", "kube-proxy 1.35 has no feature gate KubeProxyNFTablesLocalhostNodePorts", false},
		{"kube-proxy engine", "kubeProxy:\n  engine: kube-proxy\n  featureGates: {KubeProxyNFTablesLocalhostNodePorts: true}\n", "does not set feature gates", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("g.yaml", []byte(base+tt.kubeProxy))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.KubeProxy.FeatureGate(FeatureGateNFTablesLocalhostNodePorts); got != tt.on {
				t.Errorf("gate %v, want %v", got, tt.on)
			}
		})
	}
	sc, err := Parse("g.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	on, err := sc.WithFeatureGates(map[string]bool{FeatureGateNFTablesLocalhostNodePorts: true})
	if err != nil || !on.KubeProxy.FeatureGate(FeatureGateNFTablesLocalhostNodePorts) || on.Hash() == sc.Hash() {
		t.Fatalf("override: %v, gates %v, hash changed %v", err, on.KubeProxy.FeatureGates, on.Hash() != sc.Hash())
	}
	if _, err := sc.WithFeatureGates(map[string]bool{"Bogus": true}); err == nil {
		t.Error("override with an unknown gate accepted")
	}
}

func TestParseFeatureGates(t *testing.T) {
	for _, tt := range []struct {
		in, wantErr string
		want        map[string]bool
	}{
		{"KubeProxyNFTablesLocalhostNodePorts=true", "", map[string]bool{FeatureGateNFTablesLocalhostNodePorts: true}},
		{" KubeProxyNFTablesLocalhostNodePorts = false ", "", map[string]bool{FeatureGateNFTablesLocalhostNodePorts: false}},
		{"Bogus=true", `unknown feature gate "Bogus" (svclab knows KubeProxyNFTablesLocalhostNodePorts)`, nil},
		{"KubeProxyNFTablesLocalhostNodePorts", "want Name=true or Name=false", nil},
		{"KubeProxyNFTablesLocalhostNodePorts=yes", "want Name=true or Name=false", nil},
		{"", "want Name=true or Name=false", nil},
	} {
		got, err := ParseFeatureGates(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tt.want) {
			t.Errorf("%q: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
}
