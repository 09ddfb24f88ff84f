package nftables

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

func TestOptionsFor(t *testing.T) {
	tests := []struct {
		name string
		cfg  render.Config
		want Options
	}{
		{"zero config", render.Config{}, Options{}},
		{"version and gate", render.Config{Version: render.KubeProxy135, LocalhostNodePortsGate: true}, Options{Version: render.KubeProxy135, LocalhostNodePortsGate: true}},
		{"flags", render.Config{Flags: render.Flags{MasqueradeAll: true, NodePortAddresses: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/24")}}},
			Options{Flags: render.Flags{MasqueradeAll: true, NodePortAddresses: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/24")}}}},
		{"scheduler and host facts are not nftables'", render.Config{IPVSScheduler: "mh", Host: render.HostFacts{NoRandomFully: true, NFAcct: true}}, Options{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OptionsFor(tc.cfg); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("OptionsFor(%+v) = %+v, want %+v", tc.cfg, got, tc.want)
			}
		})
	}
}
