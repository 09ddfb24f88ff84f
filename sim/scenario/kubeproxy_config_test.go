package scenario

import (
	"net/netip"
	"reflect"
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
		{"flags", KubeProxy{Flags: render.Flags{MasqueradeAll: true, NodePortPrimary: true}}, "", render.Config{Flags: render.Flags{MasqueradeAll: true, NodePortPrimary: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.kp.Config(tc.scheduler)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Config(%q) = %+v, want %+v", tc.scheduler, got, tc.want)
			}
		})
	}
}

// TestKubeProxyFlagsReachTheConfig: the file's kube-proxy flags, and those
// given over it, are the scenario's Config (not its model).
func TestKubeProxyFlagsReachTheConfig(t *testing.T) {
	sc, err := Parse("flags", []byte("synthetic: {services: 0}\nkubeProxy: {masqueradeAll: true, nodePortAddresses: [10.1.0.0/16], localhostNodePorts: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := render.Flags{MasqueradeAll: true, NoLocalhostNodePorts: true,
		NodePortAddresses: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	if got := sc.KubeProxy.Config("").Flags; !reflect.DeepEqual(got, want) {
		t.Errorf("the file's flags: %+v, want %+v", got, want)
	}
	off := false
	sc, err = sc.WithProxyFlags(ProxyFlags{MasqueradeAll: &off, NodePortAddresses: []string{"192.168.0.0/24"}})
	if err != nil {
		t.Fatal(err)
	}
	want = render.Flags{NoLocalhostNodePorts: true, NodePortAddresses: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/24")}}
	if got := sc.KubeProxy.Config("").Flags; !reflect.DeepEqual(got, want) {
		t.Errorf("with flags over the file's: %+v, want %+v", got, want)
	}
}
