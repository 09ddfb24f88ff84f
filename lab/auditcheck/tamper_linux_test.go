package auditcheck

import (
	"testing"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

var kernelTamperings = []audittest.Tampering{
	{Name: "rule deleted", Mode: dataplane.ModeIPTables, Drop: []string{`ns7/web:http -> 10.180.0.72:8080`},
		Service: "ns7/web", Kind: audit.Missing, Change: "endpoint 10.180.0.72:8080 gone"},
	{Name: "rule deleted", Mode: dataplane.ModeNFTables, Drop: []string{`10.180.0.72 . 8080`},
		Service: "ns7/web", Kind: audit.Missing, Change: "traffic dropped"},
	{Name: "stale chains of a deleted Service", Extra: audittest.DeletedService,
		Service: "ns8/old", Kind: audit.Stale, Change: "traffic still reaches 10.180.0.81:80"},
	{Name: "stale endpoint", Extra: audittest.GoneEndpoint,
		Service: "ns7/web", Kind: audit.Stale, Change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{Name: "map element missing", Mode: dataplane.ModeNFTables,
		Del:     []string{"delete", "element", "ip", "kube-proxy", "service-ips", "{ 172.30.0.47 . tcp . 80 }"},
		Service: "ns7/web", Kind: audit.Missing, Change: "traffic dropped"},
	{Name: "another version's layout", Mode: dataplane.ModeNFTables, Version: "1.35",
		Service: "ns7/web", Kind: audit.Missing},
	{Name: "a flag: --masquerade-all", Mode: dataplane.ModeIPTables, MasqueradeAll: true,
		Service: "ns7/web", Kind: audit.Stale, Change: "endpoint 10.180.0.71:8080 sees source 192.168.0.2 instead of 10.244.255.1"},
	{Name: "a flag: --masquerade-all", Mode: dataplane.ModeNFTables, MasqueradeAll: true, // one node-wide rule in nftables
		Service: "", Kind: audit.Stale, Change: "endpoint 10.180.0.71:8080 sees source 192.168.0.2 instead of 10.244.255.1"},
}

// TestKernelOtherVersionIPTables: kube-proxy v1.34-v1.36 write the test
// cluster's iptables rules exactly as v1.37 does (on an iptables with
// --random-fully), so a node they programmed audits clean as v1.37: a
// layout that does not differ is no finding.
func TestKernelOtherVersionIPTables(t *testing.T) {
	o := audittest.Objects(t)
	for _, n := range kernelNodes[:2] {
		for _, v := range render.KubeProxyVersions[:len(render.KubeProxyVersions)-1] {
			t.Run(n.name+"/"+string(v), func(t *testing.T) {
				ns := programNode(t, n, v, o, false)
				if rep := auditNode(t, o, n.mode, render.LatestKubeProxy, listing(t, ns, n)); !rep.Clean() {
					t.Fatalf("kube-proxy %s's rules audited as %s:\n%s", v, render.LatestKubeProxy, audittest.ReportText(rep))
				}
			})
		}
	}
}

// TestKernelTampering programs a node with kube-proxy, tampers with what
// it wrote, reads it back from the kernel and audits it.
func TestKernelTampering(t *testing.T) {
	base := audittest.Objects(t)
	for _, n := range kernelNodes {
		for _, tc := range kernelTamperings {
			if tc.Mode != "" && tc.Mode != n.mode {
				continue
			}
			t.Run(n.name+"/"+tc.Name, func(t *testing.T) {
				v := tc.Version
				if v == "" {
					v = render.LatestKubeProxy
				}
				ns := programNode(t, n, v, audittest.Objects(t, extras(tc)...), tc.MasqueradeAll)
				tamper(t, ns, n, tc)
				audittest.Check(t, tc, auditNode(t, base, n.mode, render.LatestKubeProxy, listing(t, ns, n)))
			})
		}
	}
}

// tamper changes the node's rules in the kernel.
func tamper(t *testing.T, ns string, n kernelNode, tc audittest.Tampering) {
	t.Helper()
	if len(tc.Del) > 0 {
		if out, err := netns.Output(ns, nil, append([]string{"nft"}, tc.Del...)...); err != nil {
			t.Fatalf("nft %v: %v %s", tc.Del, err, out)
		}
	}
	if len(tc.Drop) == 0 {
		return
	}
	edited := audittest.DropLines(t, listing(t, ns, n), tc.Drop)
	load := n.restore
	if n.mode == dataplane.ModeNFTables {
		if out, err := netns.Output(ns, nil, "nft", "delete", "table", "ip", "kube-proxy"); err != nil {
			t.Fatalf("nft delete table: %v %s", err, out)
		}
		load = []string{"nft", "-f", "-"}
	}
	if out, err := netns.Output(ns, []byte(edited), load...); err != nil {
		t.Fatalf("load the tampered rules with %v: %v %s", load, err, out)
	}
}

// extras is the tampering's extra objects file, if any.
func extras(tc audittest.Tampering) []string {
	if tc.Extra == "" {
		return nil
	}
	return []string{tc.Extra}
}
