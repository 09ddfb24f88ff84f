package auditcheck

import (
	"context"
	"testing"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestLiveRules reads a kube-proxy node's rules the way svclab audit
// --live does (host.NodeRules, in the node's namespace) and audits them
// clean, then finds a deleted rule.
func TestLiveRules(t *testing.T) {
	o := audittest.Objects(t)
	for _, n := range kernelNodes {
		t.Run(n.name, func(t *testing.T) {
			ns := programNode(t, n, render.LatestKubeProxy, o, false)
			live := func() *audit.Report {
				var d *analyze.Dump
				err := netns.Do(ns, func() (err error) {
					d, err = host.NodeRules(context.Background(), n.mode, model.IPv4, n.variant)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				rep, err := audit.Run(audit.Input{Objects: o, Mode: n.mode, Dump: d, Expected: audit.KubeProxy(context.Background(), kubeproxy.RenderFirst)})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			if rep := live(); !rep.Clean() {
				t.Fatalf("live rules of an untouched node have findings:\n%s", audittest.ReportText(rep))
			}
			tc := ruleDeleted(n.mode)
			tamper(t, ns, n, tc)
			audittest.Check(t, tc, live())
		})
	}
}

// ruleDeleted is the "rule deleted" tampering of mode.
func ruleDeleted(mode dataplane.Mode) audittest.Tampering {
	for _, tc := range kernelTamperings {
		if tc.Name == "rule deleted" && tc.Mode == mode {
			return tc
		}
	}
	panic("no rule-deleted tampering for " + string(mode))
}
