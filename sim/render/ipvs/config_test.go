package ipvs

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

func TestOptionsFor(t *testing.T) {
	with := func(f func(*Options)) Options { o := DefaultOptions(); f(&o); return o }
	node := netip.MustParseAddr("192.168.99.2")
	tests := []struct {
		name string
		cfg  render.Config
		want Options
	}{
		{"zero config is the defaults", render.Config{}, DefaultOptions()},
		{"version and scheduler", render.Config{Version: render.KubeProxy135, IPVSScheduler: "mh"}, with(func(o *Options) { o.Version, o.Scheduler = render.KubeProxy135, "mh" })},
		{"host facts", render.Config{Host: render.HostFacts{NoRandomFully: true, NodeIPs: []netip.Addr{node}}}, with(func(o *Options) { o.RandomFully, o.NodeIPs = false, []netip.Addr{node} })},
		{"flags", render.Config{Flags: render.Flags{MasqueradeAll: true, NodePortPrimary: true}}, with(func(o *Options) { o.Flags = render.Flags{MasqueradeAll: true, NodePortPrimary: true} })},
		{"the gate is not IPVS'", render.Config{LocalhostNodePortsGate: true}, DefaultOptions()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OptionsFor(tc.cfg); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("OptionsFor(%+v) = %+v, want %+v", tc.cfg, got, tc.want)
			}
		})
	}
}
