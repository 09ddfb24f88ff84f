package audit_test

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// nodeText renders the rules native kube-proxy writes for o and prints
// them as the node's tools print them back.
func nodeText(t testing.TB, o *objects.Objects, mode dataplane.Mode, v render.KubeProxyVersion) string {
	t.Helper()
	m, err := audit.NodeModel(audit.Input{Objects: o, Family: model.IPv4})
	if err != nil {
		t.Fatal(err)
	}
	d, err := audit.Native(m, mode, render.Config{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	return audit.DumpText(d)
}

// runText audits a node's dump text against o as kube-proxy v.
func runText(t testing.TB, o *objects.Objects, mode dataplane.Mode, v render.KubeProxyVersion, text string) *audit.Report {
	t.Helper()
	d, err := analyze.Load(strings.NewReader(text))
	if err != nil {
		t.Fatalf("load the node's dump: %v\n%s", err, text)
	}
	rep, err := audit.Run(audit.Input{Objects: o, Mode: mode, Config: render.Config{Version: v}, Dump: d, OtherVersions: render.KubeProxyVersions})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestUntouchedNativeIsClean(t *testing.T) {
	o := audittest.Objects(t)
	for _, mode := range dataplane.Modes() {
		for _, v := range render.KubeProxyVersions {
			t.Run(string(mode)+"/"+string(v), func(t *testing.T) {
				if rep := runText(t, o, mode, v, nodeText(t, o, mode, v)); !rep.Clean() {
					t.Fatalf("an untouched node has findings:\n%s", audittest.ReportText(rep))
				}
			})
		}
	}
}
