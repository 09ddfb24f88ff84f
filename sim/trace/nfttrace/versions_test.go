package nfttrace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/trace"
)

// overallDumps is where kube-proxy's own expected nftables output of each
// release lives: TestOverallNFTablesRules of k8s.io/kubernetes@<patch>,
// copied verbatim (the renderer's differential test reads it too).
const overallDumps = "../../render/nftables/testdata/kube-proxy"

// overallPackets are traced through each release's dump: its test's node
// (192.168.0.2, pods in 10.0.0.0/8) and services svc1 to svc6.
var overallPackets = []struct {
	name string
	pkt  trace.Packet
}{
	{"svc1 from a pod", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.41"), Proto: "tcp", DPort: 80}},
	{"svc1 hairpin", trace.Packet{Src: addr("10.180.0.1"), Dst: addr("172.30.0.41"), Proto: "tcp", DPort: 80}},
	{"svc1 from outside the cluster", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("172.30.0.41"), Proto: "tcp", DPort: 80}},
	{"svc2 externalIP, local policy", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("192.168.99.22"), Proto: "tcp", DPort: 80}},
	{"svc3 NodePort", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("192.168.0.2"), Proto: "tcp", DPort: 3003}},
	{"svc4 two endpoints", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.44"), Proto: "tcp", DPort: 80}},
	{"svc5 LoadBalancer allowed", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("5.6.7.8"), Proto: "tcp", DPort: 80}},
	{"svc5 LoadBalancer refused", trace.Packet{Src: addr("198.51.100.1"), Dst: addr("5.6.7.8"), Proto: "tcp", DPort: 80}},
	{"svc6 no endpoints", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.46"), Proto: "tcp", DPort: 80}},
	{"unallocated cluster IP", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.99"), Proto: "tcp", DPort: 80}},
}

// TestKubeProxyVersions: the tracer reads the nftables output of every
// supported kube-proxy release (render.KubeProxyReleases: v1.34's and
// v1.35's endpoint chains, v1.36's numgen map of one, v1.37's `dnat to`
// and localhost rejects) and every release routes the same packets alike:
// same verdicts, endpoints, probabilities and masquerading
// (testdata/kube-proxy-versions.golden).
func TestKubeProxyVersions(t *testing.T) {
	for _, r := range render.KubeProxyReleases() {
		t.Run(string(r.Version), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(overallDumps, r.Patch+"-TestOverallNFTablesRules.nft"))
			if err != nil {
				t.Fatalf("kube-proxy %s: %v", r.Version, err)
			}
			prog := compileText(t, declaredFirst(string(raw)))
			var traces strings.Builder
			for _, p := range overallPackets {
				res, err := prog.Trace(p.pkt)
				if err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				fmt.Fprintf(&traces, "%-30s %s\n", p.name, outcomesString(res))
			}
			golden.Check(t, filepath.Join("testdata", "kube-proxy-versions.golden"), []byte(traces.String()))
		})
	}
}

// declaredFirst reorders a dump written in kube-proxy's test order (rules
// before the chains and sets they name) so that every object is added
// before it is used: tables, sets, maps and counters, chains, rules,
// elements, each group in its original order.
func declaredFirst(dump string) string {
	order := []string{"add table ", "add set ", "add map ", "add counter ", "add chain ", "add rule ", "add element "}
	groups := make([][]string, len(order))
	for _, l := range strings.Split(dump, "\n") {
		for i, p := range order {
			if strings.HasPrefix(l, p) {
				groups[i] = append(groups[i], l)
				break
			}
		}
	}
	var b strings.Builder
	for _, g := range groups {
		for _, l := range g {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
