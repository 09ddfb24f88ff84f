package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	simipt "github.com/svclab/svclab/sim/iptables"
	simnft "github.com/svclab/svclab/sim/nftables"
)

// overallDir holds kube-proxy's own expectations, copied verbatim with
// their sources, and their services as Kubernetes objects.
const overallDir = "../../kubeproxy/conformance/testdata/overall/"

// TestRenderReproducesKubeProxysOverallTests (issue 13 acceptance): `svclab
// render` of kube-proxy's TestOverallIPTablesRules and
// TestOverallNFTablesRules services, written as Kubernetes objects, equals
// the tests' expected output after kube-proxy's canonical sorts. The only
// edit is the masquerade mark, which kube-proxy's test fake spells 0x4000
// where kube-proxy itself writes %#08x (0x00004000).
func TestRenderReproducesKubeProxysOverallTests(t *testing.T) {
	tests := []struct {
		name, scenario, expected string
		args                     []string
		canonical                func(string) (string, error)
	}{
		{"iptables v1.37", "iptables.yaml", "TestOverallIPTablesRules.v1.37.2.rules", []string{"--mode", "iptables", "--nfacct", "--kube-proxy-version", "1.37"}, simipt.Canonical},
		{"iptables v1.35", "iptables.yaml", "TestOverallIPTablesRules.v1.35.4.rules", []string{"--mode", "iptables", "--nfacct", "--random-fully=false", "--kube-proxy-version", "1.35"}, simipt.Canonical},
		{"nftables v1.37", "nftables-ipv4.yaml", "v1.37.2-TestOverallNFTablesRules.nft", []string{"--mode", "nftables", "--kube-proxy-version", "1.37"}, nftCanonical},
		{"nftables v1.37 IPv6", "nftables-ipv6.yaml", "v1.37.2-TestOverallNFTablesRulesIPv6.nft", []string{"--mode", "nftables", "--kube-proxy-version", "1.37"}, nftCanonical},
		{"nftables v1.35", "nftables-ipv4.yaml", "v1.35.4-TestOverallNFTablesRules.nft", []string{"--mode", "nftables", "--kube-proxy-version", "1.35"}, nftCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"--scenario", "testdata/overall/" + tt.scenario}, tt.args...)
			if err := runRender(args, &out, &errOut); err != nil {
				t.Fatalf("render %v: %v\n%s", args, err, errOut.String())
			}
			want, err := os.ReadFile(overallDir + tt.expected)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(out.String(), "0x00004000", "0x4000")
			sameCanonical(t, tt.canonical, string(want), got)
		})
	}
}

func nftCanonical(tx string) (string, error) { return simnft.SortTransaction(tx), nil }

// sameCanonical fails with the first differing lines when want and got
// differ after canonical.
func sameCanonical(t *testing.T, canonical func(string) (string, error), want, got string) {
	t.Helper()
	w, err := canonical(want)
	if err != nil {
		t.Fatalf("expected output: %v", err)
	}
	g, err := canonical(got)
	if err != nil {
		t.Fatalf("svclab's output: %v", err)
	}
	if w == g {
		return
	}
	wl, gl := strings.Split(w, "\n"), strings.Split(g, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var a, b string
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			b = gl[i]
		}
		if a != b {
			t.Fatalf("line %d differs after the canonical sort:\nkube-proxy: %s\nsvclab:     %s", i+1, a, b)
		}
	}
}
