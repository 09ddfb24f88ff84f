package auditcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// kernelNode is how a mode's rules reach the kernel and are read back.
type kernelNode struct {
	name    string
	mode    dataplane.Mode
	variant string   // the iptables variant kube-proxy runs ("legacy", "nft")
	save    []string // the command that lists the node's rules
	restore []string // the command that loads a tampered listing back
	// programmed is in the listing once kube-proxy's sync reached the kernel.
	programmed string
}

var kernelNodes = []kernelNode{
	{name: "iptables-legacy", mode: dataplane.ModeIPTables, variant: "legacy", save: []string{"iptables-legacy-save"}, restore: []string{"iptables-legacy-restore"}, programmed: "-A KUBE-SERVICES"},
	{name: "iptables-nft", mode: dataplane.ModeIPTables, variant: "nft", save: []string{"iptables-nft-save"}, restore: []string{"iptables-nft-restore"}, programmed: "-A KUBE-SERVICES"},
	{name: "nftables", mode: dataplane.ModeNFTables, save: []string{"nft", "list", "ruleset"}, programmed: "map service-ips"},
}

// modelOf is the model kube-proxy on the objects' node sees.
func modelOf(o *objects.Objects) *model.Model {
	c := model.DefaultCluster()
	o.LocalNode("").Apply(&c)
	return &model.Model{Cluster: c, Services: o.Services}
}

// driver finds the kube-proxy driver of v, or skips (fails under CI).
func driver(t *testing.T, v render.KubeProxyVersion) string {
	t.Helper()
	bin, err := kubeproxy.Find(string(v))
	labtest.Require(t, err)
	return bin
}

// programNode runs kube-proxy v in a scratch namespace holding the node's
// address, lets it sync the objects once and stops it; its rules stay.
func programNode(t *testing.T, n kernelNode, v render.KubeProxyVersion, o *objects.Objects, masqueradeAll bool) string {
	t.Helper()
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, n.save[0])
	bin := driver(t, v)
	ns := labtest.ScratchNetns(t)
	m := modelOf(o)
	labtest.IP(t, ns, "link", "add", "eth0", "type", "veth", "peer", "name", "eth1")
	labtest.IP(t, ns, "addr", "add", m.Cluster.NodeIP.String()+"/24", "dev", "eth0")
	labtest.IP(t, ns, "link", "set", "eth0", "up")
	e := &kubeproxy.Engine{NS: ns, Bin: bin, Mode: string(n.mode), IPTables: n.variant,
		Config: render.Config{Flags: render.Flags{MasqueradeAll: masqueradeAll}}}
	var synced error
	for range 3 {
		if synced = syncOnce(e, m); synced == nil && strings.Contains(listing(t, ns, n), n.programmed) {
			break
		}
		if synced == nil {
			synced = fmt.Errorf("kube-proxy %s's first sync did not reach the kernel: the node lacks %q (iptables' xtables lock, one for every namespace, may be held by another process)", v, n.programmed)
		}
	}
	labtest.Require(t, synced)
	return ns
}

// syncOnce runs kube-proxy's first sync of m and stops it.
func syncOnce(e *kubeproxy.Engine, m *model.Model) error {
	s, err := e.FullSync(context.Background(), m)
	if err == nil && s.Error != "" {
		err = errors.New(s.Error)
	}
	return errors.Join(err, e.Close())
}

// listing reads the node's rules as its tools print them.
func listing(t *testing.T, ns string, n kernelNode) string {
	t.Helper()
	out, err := netns.Output(ns, nil, n.save...)
	if err != nil {
		t.Fatalf("%v: %v", n.save, err)
	}
	return string(out)
}

// auditNode audits the listing against o as kube-proxy v (its own code in
// render mode says what it writes).
func auditNode(t *testing.T, o *objects.Objects, mode dataplane.Mode, v render.KubeProxyVersion, text string) *audit.Report {
	t.Helper()
	d, err := analyze.Load(strings.NewReader(text))
	if err != nil {
		t.Fatalf("load the node's listing: %v", err)
	}
	rep, err := audit.Run(audit.Input{Objects: o, Mode: mode, Config: render.Config{Version: v}, Dump: d, OtherVersions: render.KubeProxyVersions,
		Expected: audit.KubeProxy(context.Background(), kubeproxy.RenderFirst)})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestUntouchedKernelNodes: a node kube-proxy programmed, read back from
// the kernel, has no finding, for every mode the kernel runs and every
// supported version.
func TestUntouchedKernelNodes(t *testing.T) {
	o := audittest.Objects(t)
	for _, n := range kernelNodes {
		for _, v := range render.KubeProxyVersions {
			t.Run(n.name+"/"+string(v), func(t *testing.T) {
				ns := programNode(t, n, v, o, false)
				rep := auditNode(t, o, n.mode, v, listing(t, ns, n))
				if !rep.Clean() {
					t.Fatalf("an untouched node has findings:\n%s", audittest.ReportText(rep))
				}
			})
		}
	}
}
