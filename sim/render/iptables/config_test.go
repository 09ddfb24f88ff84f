package iptables

import (
	"reflect"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

func TestOptionsFor(t *testing.T) {
	with := func(f func(*Options)) Options { o := DefaultOptions(); f(&o); return o }
	tests := []struct {
		name string
		cfg  render.Config
		want Options
	}{
		{"zero config is the defaults", render.Config{}, DefaultOptions()},
		{"version", render.Config{Version: render.KubeProxy135}, with(func(o *Options) { o.Version = render.KubeProxy135 })},
		{"iptables without --random-fully", render.Config{Host: render.HostFacts{NoRandomFully: true}}, with(func(o *Options) { o.RandomFully = false })},
		{"nfacct and liberal conntrack", render.Config{Host: render.HostFacts{NFAcct: true, ConntrackLiberal: true}}, with(func(o *Options) { o.NFAcct, o.ConntrackLiberal = true, true })},
		{"flags", render.Config{Flags: render.Flags{MasqueradeAll: true, NoLocalhostNodePorts: true, NodePortPrimary: true}},
			with(func(o *Options) {
				o.Flags = render.Flags{MasqueradeAll: true, NoLocalhostNodePorts: true, NodePortPrimary: true}
			})},
		{"scheduler and gate are not iptables'", render.Config{IPVSScheduler: "mh", LocalhostNodePortsGate: true}, DefaultOptions()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OptionsFor(tc.cfg); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("OptionsFor(%+v) = %+v, want %+v", tc.cfg, got, tc.want)
			}
		})
	}
}
