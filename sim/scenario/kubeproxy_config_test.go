package scenario

import (
	"testing"

	"github.com/svclab/svclab/sim/render"
)

func TestKubeProxyConfig(t *testing.T) {
	tests := []struct {
		name      string
		kp        KubeProxy
		scheduler string
		want      render.Config
	}{
		{"defaults", KubeProxy{}, "", render.Config{}},
		{"version and scheduler", KubeProxy{Version: render.KubeProxy135}, "mh", render.Config{Version: render.KubeProxy135, IPVSScheduler: "mh"}},
		{"the localhost NodePorts gate", KubeProxy{FeatureGates: map[string]bool{FeatureGateNFTablesLocalhostNodePorts: true}}, "", render.Config{LocalhostNodePortsGate: true}},
		{"a gate set off", KubeProxy{FeatureGates: map[string]bool{FeatureGateNFTablesLocalhostNodePorts: false}}, "", render.Config{}},
		{"the engine is not configuration", KubeProxy{Engine: EngineKubeProxy}, "", render.Config{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.kp.Config(tc.scheduler)
			if got.Version != tc.want.Version || got.IPVSScheduler != tc.want.IPVSScheduler || got.LocalhostNodePortsGate != tc.want.LocalhostNodePortsGate || got.Host.NoRandomFully || got.Host.NFAcct {
				t.Errorf("Config(%q) = %+v, want %+v", tc.scheduler, got, tc.want)
			}
		})
	}
}
