package conformance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
	rendipvs "github.com/svclab/svclab/sim/render/ipvs"
)

// TestNoRandomFully: on a host whose iptables lacks MASQUERADE
// --random-fully, kube-proxy's iptables and IPVS proxiers leave it out
// (v1.34–v1.36 ask iptables; v1.37 always writes it), and the native
// renderers, given the same host fact (render.HostFacts.NoRandomFully),
// write the same payloads.
func TestNoRandomFully(t *testing.T) {
	cfg := render.Config{Version: nativeVersion(), Host: render.HostFacts{NoRandomFully: true}}
	fm := with(1, model.NodePort, nil)()
	m := fm.Model
	p := model.ForFamily(m, model.IPv4)
	for _, mode := range []string{kube.ModeIPTables, kube.ModeIPVS} {
		t.Run(mode, func(t *testing.T) {
			req, err := kube.NewRequest(mode, cfg, &m)
			if err != nil {
				t.Fatal(err)
			}
			kp, err := renderRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			masq := masqueradeRule(kp[0].Payload)
			if masq == "" {
				t.Fatalf("kube-proxy's %s payload has no MASQUERADE rule:\n%s", mode, kp[0].Payload)
			}
			if got, want := strings.Contains(masq, "--random-fully"), cfg.Version.AlwaysRandomFully(); got != want {
				t.Errorf("kube-proxy %s %s on an iptables without --random-fully: %q (want --random-fully: %v)", driver.Version(), mode, masq, want)
			}
			var d string
			if mode == kube.ModeIPVS {
				d, err = compareIPVSWith([]*model.Model{&p}, kp, rendipvs.OptionsFor(cfg))
			} else {
				var buf bytes.Buffer
				if _, err = rendipt.Render(&buf, &p, rendipt.OptionsFor(cfg)); err == nil {
					d, err = diffRestore(kp[0].Payload, buf.String())
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if d != "" {
				t.Errorf("native %s without --random-fully differs from kube-proxy %s:\n%s", mode, driver.Version(), d)
			}
		})
	}
}

// masqueradeRule is the payload's MASQUERADE rule of the traffic
// kube-proxy marked ("" if none; IPVS mode's hairpin MASQUERADE never
// has --random-fully).
func masqueradeRule(payload string) string {
	for _, l := range strings.Split(payload, "\n") {
		if strings.Contains(l, "requiring SNAT") && strings.Contains(l, "-j MASQUERADE") {
			return l
		}
	}
	return ""
}
