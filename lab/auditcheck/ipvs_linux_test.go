package auditcheck

import (
	"context"
	"testing"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// ipvsNodeText is what an IPVS node kube-proxy v programmed with o holds,
// from kube-proxy's render mode (this host has no IPVS): its ipvsadm -Sn
// and ipset save, and its iptables payload restored with the jump rules,
// in iptables-save form.
func ipvsNodeText(t *testing.T, o *objects.Objects, v render.KubeProxyVersion, renderer audit.Renderer) string {
	t.Helper()
	if renderer == nil {
		driver(t, v)
		renderer = audit.KubeProxy(context.Background(), kubeproxy.RenderFirst)
	}
	d, err := renderer(modelOf(o), dataplane.ModeIPVS, render.Config{Version: v})
	labtest.Require(t, err)
	return audit.DumpText(d)
}

// TestIPVSRenderModeUntouched: kube-proxy's own IPVS state audits clean
// for every version, and so does svclab's native render of it (a
// differential check of the audit's IPVS facts against kube-proxy's).
func TestIPVSRenderModeUntouched(t *testing.T) {
	o := audittest.Objects(t)
	for _, v := range render.KubeProxyVersions {
		for _, tc := range []struct {
			name     string
			renderer audit.Renderer
		}{{"kube-proxy", nil}, {"native", audit.Native}} {
			t.Run(string(v)+"/"+tc.name, func(t *testing.T) {
				driver(t, v)
				rep := auditNode(t, o, dataplane.ModeIPVS, v, ipvsNodeText(t, o, v, tc.renderer))
				if !rep.Clean() {
					t.Fatalf("an untouched IPVS node has findings:\n%s", audittest.ReportText(rep))
				}
			})
		}
	}
}

var ipvsTamperings = []audittest.Tampering{
	{Name: "real server deleted", Drop: []string{"-a -t 172.30.0.47:80 -r 10.180.0.72:8080"},
		Service: "ns7/web", Kind: audit.Missing, Change: "endpoint 10.180.0.72:8080 gone"},
	{Name: "virtual server of a deleted Service", Extra: audittest.DeletedService,
		Service: "-t 172.30.0.48:80", Kind: audit.Stale, Change: "traffic still reaches 10.180.0.81:80"},
	{Name: "stale endpoint", Extra: audittest.GoneEndpoint,
		Service: "ns7/web", Kind: audit.Stale, Change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{Name: "ipset member missing", Drop: []string{"add KUBE-CLUSTER-IP 172.30.0.47,tcp:80"},
		Service: "ns7/web", Kind: audit.Missing, Change: "traffic dropped"},
	{Name: "jump rule deleted", Drop: []string{"-A PREROUTING"}, // IPVS still DNATs; the masquerade mark is lost
		Service: "", Kind: audit.Missing, Change: "endpoint 10.180.0.3:80 sees source 203.0.113.7 instead of 192.168.0.2"},
}

// TestIPVSRenderModeTampering tampers with kube-proxy's render-mode IPVS
// state and audits it.
func TestIPVSRenderModeTampering(t *testing.T) {
	base := audittest.Objects(t)
	for _, tc := range ipvsTamperings {
		t.Run(tc.Name, func(t *testing.T) {
			text := ipvsNodeText(t, audittest.Objects(t, extras(tc)...), render.LatestKubeProxy, nil)
			if len(tc.Drop) > 0 {
				text = audittest.DropLines(t, text, tc.Drop)
			}
			audittest.Check(t, tc, auditNode(t, base, dataplane.ModeIPVS, render.LatestKubeProxy, text))
		})
	}
}
