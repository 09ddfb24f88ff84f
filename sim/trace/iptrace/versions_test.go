package iptrace

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/trace"
)

// overallDumps is where kube-proxy's own expected iptables output of each
// release lives: TestOverallIPTablesRules of k8s.io/kubernetes@<patch>,
// copied verbatim (the renderer's differential test reads it too).
const overallDumps = "../../render/iptables/testdata/kube-proxy"

// TestKubeProxyVersions: the tracer reads the iptables output of every
// supported kube-proxy release (render.KubeProxyReleases) and every
// release routes the same packets alike: same verdict, service, endpoints,
// probabilities and masquerading (testdata/golden/kube-proxy-versions.golden).
// The packets use the test's node (192.168.0.2, pods in 10.0.0.0/8) and
// services svc1 to svc6.
func TestKubeProxyVersions(t *testing.T) {
	packets := []struct {
		name string
		pkt  trace.Packet
	}{
		{"svc1 from a pod", tcp("10.0.0.2", "172.30.0.41", 80)},
		{"svc1 hairpin", tcp("10.180.0.1", "172.30.0.41", 80)},
		{"svc1 from outside the cluster", tcp("203.0.113.2", "172.30.0.41", 80)},
		{"svc2 externalIP, local policy", tcp("203.0.113.2", "192.168.99.22", 80)},
		{"svc3 NodePort", tcp("203.0.113.2", "192.168.0.2", 3003)},
		{"svc4 two endpoints", tcp("10.0.0.2", "172.30.0.44", 80)},
		{"svc5 LoadBalancer allowed", tcp("203.0.113.2", "5.6.7.8", 80)},
		{"svc5 LoadBalancer refused", tcp("198.51.100.1", "5.6.7.8", 80)},
		{"svc6 no endpoints", tcp("10.0.0.2", "172.30.0.46", 80)},
	}
	opts := Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("192.168.0.2")}}
	for _, r := range render.KubeProxyReleases() {
		t.Run(string(r.Version), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(overallDumps, r.Patch+"-TestOverallIPTablesRules.rules"))
			if err != nil {
				t.Fatalf("kube-proxy %s: %v", r.Version, err)
			}
			tr := mustTracer(t, parseDump(t, string(raw)), opts)
			var traces strings.Builder
			for _, p := range packets {
				fmt.Fprintf(&traces, "%-30s %s\n", p.name, versionsSummary(mustTrace(t, tr, p.pkt)))
			}
			checkGolden(t, "kube-proxy-versions.golden", traces.String())
		})
	}
}

// versionsSummary is what must agree: the verdict, the service, and per
// endpoint its address, probabilities, verdict and masquerading.
func versionsSummary(tr Trace) string {
	s := fmt.Sprintf("%s %q masq=%v", tr.Verdict, tr.Service, tr.Masquerade)
	for _, e := range tr.Endpoints {
		s += fmt.Sprintf("; %s p=%.10f kernel=%.10f %s masq=%v", e.Endpoint, e.Probability, e.Effective, e.Verdict, e.Masquerade)
	}
	return s
}
