package auditcheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

// Objects the node was programmed with before the cluster changed
// (items appended to cluster.yaml): ns8/old, since deleted, and a fourth
// endpoint of ns7/web, since gone.
const (
	deletedService = "deleted-service.items.yaml"
	goneEndpoint   = "gone-endpoint.items.yaml"
)

// tampering is one way a node's rules go wrong, and what the audit must
// say about it.
type tampering struct {
	name string
	// mode limits the tampering to one mode ("": every kernel node).
	mode dataplane.Mode
	// extra objects kube-proxy programmed the node with; the version that
	// programmed it ("": the audited one, the newest); drop edits the
	// node's listing (every line holding one of the strings) and loads it
	// back; del is an nft command run on the node.
	extra   string
	version render.KubeProxyVersion
	// masqueradeAll: kube-proxy ran with --masquerade-all (a flag the
	// audit is not told of).
	masqueradeAll bool
	drop          []string
	del           []string
	// The audit must name service with a finding of kind, and a traffic
	// change holding change ("": the traffic must not change).
	service string
	kind    audit.Kind
	change  string
}

var kernelTamperings = []tampering{
	{name: "rule deleted", mode: dataplane.ModeIPTables, drop: []string{`ns7/web:http -> 10.180.0.72:8080`},
		service: "ns7/web", kind: audit.Missing, change: "endpoint 10.180.0.72:8080 gone"},
	{name: "rule deleted", mode: dataplane.ModeNFTables, drop: []string{`10.180.0.72 . 8080`},
		service: "ns7/web", kind: audit.Missing, change: "traffic dropped"},
	{name: "stale chains of a deleted Service", extra: deletedService,
		service: "ns8/old", kind: audit.Stale, change: "traffic still reaches 10.180.0.81:80"},
	{name: "stale endpoint", extra: goneEndpoint,
		service: "ns7/web", kind: audit.Stale, change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{name: "map element missing", mode: dataplane.ModeNFTables,
		del:     []string{"delete", "element", "ip", "kube-proxy", "service-ips", "{ 172.30.0.47 . tcp . 80 }"},
		service: "ns7/web", kind: audit.Missing, change: "traffic dropped"},
	{name: "another version's layout", mode: dataplane.ModeNFTables, version: "1.35",
		service: "ns7/web", kind: audit.Missing},
	{name: "a flag: --masquerade-all", mode: dataplane.ModeIPTables, masqueradeAll: true,
		service: "ns7/web", kind: audit.Stale, change: "endpoint 10.180.0.71:8080 sees source 192.168.0.2 instead of 10.244.255.1"},
	{name: "a flag: --masquerade-all", mode: dataplane.ModeNFTables, masqueradeAll: true, // one node-wide rule in nftables
		service: "", kind: audit.Stale, change: "endpoint 10.180.0.71:8080 sees source 192.168.0.2 instead of 10.244.255.1"},
}

// TestKernelOtherVersionIPTables: kube-proxy v1.34-v1.36 write the test
// cluster's iptables rules exactly as v1.37 does (on an iptables with
// --random-fully), so a node they programmed audits clean as v1.37: a
// layout that does not differ is no finding.
func TestKernelOtherVersionIPTables(t *testing.T) {
	o := decode(t, "")
	for _, n := range kernelNodes[:2] {
		for _, v := range render.KubeProxyVersions[:len(render.KubeProxyVersions)-1] {
			t.Run(n.name+"/"+string(v), func(t *testing.T) {
				ns := programNode(t, n, v, o, false)
				if rep := auditNode(t, o, n.mode, render.LatestKubeProxy, listing(t, ns, n)); !rep.Clean() {
					t.Fatalf("kube-proxy %s's rules audited as %s:\n%s", v, render.LatestKubeProxy, reportText(rep))
				}
			})
		}
	}
}

// TestKernelTampering programs a node with kube-proxy, tampers with what
// it wrote, reads it back from the kernel and audits it.
func TestKernelTampering(t *testing.T) {
	base := decode(t, "")
	for _, n := range kernelNodes {
		for _, tc := range kernelTamperings {
			if tc.mode != "" && tc.mode != n.mode {
				continue
			}
			t.Run(n.name+"/"+tc.name, func(t *testing.T) {
				v := tc.version
				if v == "" {
					v = render.LatestKubeProxy
				}
				ns := programNode(t, n, v, decode(t, tc.extra), tc.masqueradeAll)
				tamper(t, ns, n, tc)
				checkFound(t, tc, auditNode(t, base, n.mode, render.LatestKubeProxy, listing(t, ns, n)))
			})
		}
	}
}

// tamper changes the node's rules in the kernel.
func tamper(t *testing.T, ns string, n kernelNode, tc tampering) {
	t.Helper()
	if len(tc.del) > 0 {
		if out, err := netns.Output(ns, nil, append([]string{"nft"}, tc.del...)...); err != nil {
			t.Fatalf("nft %v: %v %s", tc.del, err, out)
		}
	}
	if len(tc.drop) == 0 {
		return
	}
	edited := dropLines(t, listing(t, ns, n), tc.drop)
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

// dropLines removes every line holding one of drop.
func dropLines(t *testing.T, text string, drop []string) string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(text, "\n") {
		hit := false
		for _, d := range drop {
			hit = hit || strings.Contains(line, d)
		}
		if !hit {
			out = append(out, line)
		}
	}
	if len(out) == strings.Count(text, "\n")+1 {
		t.Fatalf("no line holds %q in\n%s", drop, text)
	}
	return strings.Join(out, "\n")
}

// checkFound holds a report to the tampering's expectations.
func checkFound(t *testing.T, tc tampering, rep *audit.Report) {
	t.Helper()
	text := reportText(rep)
	if rep.Clean() {
		t.Fatalf("a tampered node (%s) is reported clean", tc.name)
	}
	var sr *audit.ServiceReport
	for i := range rep.Services {
		if rep.Services[i].Service == tc.service {
			sr = &rep.Services[i]
		}
	}
	if sr == nil {
		t.Fatalf("no finding for Service %q:\n%s", tc.service, text)
	}
	found := false
	for _, f := range sr.Findings {
		found = found || f.Kind == tc.kind
	}
	if !found {
		t.Errorf("Service %q has no %s finding:\n%s", tc.service, tc.kind, text)
	}
	if tc.version != "" && !slices.Contains(rep.MatchesVersions, string(tc.version)) {
		t.Errorf("want the node's rules named kube-proxy %s's:\n%s", tc.version, text)
	}
	switch {
	case tc.change == "" && rep.Summary.Paths != 0:
		t.Errorf("want no traffic change, got:\n%s", text)
	case tc.change != "" && !strings.Contains(text, tc.change):
		t.Errorf("want a traffic change %q:\n%s", tc.change, text)
	}
	t.Logf("%s", text)
}
