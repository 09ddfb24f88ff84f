package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/scenario"
)

// overallNFTablesTests are the driver's kube-proxy release's full-sync
// tests, from testdata/overall: TestOverallNFTablesRules (objects
// nftables-ipv4.yaml) and, where the release has it,
// TestOverallNFTablesRulesIPv6 (nftables-ipv6.yaml), each expected dump
// named after the patch release.
func overallNFTablesTests(t *testing.T) []overallNFTablesTest {
	t.Helper()
	var out []overallNFTablesTest
	for _, tt := range []overallNFTablesTest{
		{"nftables-ipv4.yaml", false, driver.Version() + "-TestOverallNFTablesRules.nft"},
		{"nftables-ipv6.yaml", true, driver.Version() + "-TestOverallNFTablesRulesIPv6.nft"},
	} {
		if _, err := os.Stat(filepath.Join("testdata", "overall", tt.want)); err == nil {
			out = append(out, tt)
		}
	}
	if len(out) == 0 || !strings.HasSuffix(out[0].want, "-TestOverallNFTablesRules.nft") {
		t.Fatalf("kube-proxy %s: no testdata/overall/%s-TestOverallNFTablesRules.nft", driver.Version(), driver.Version())
	}
	return out
}

// overallLocalhostGate is whether the tests run with the
// KubeProxyNFTablesLocalhostNodePorts gate on: kube-proxy's own tests do
// in the releases that have the gate (the NFTablesLocalhostNodePorts fact
// of the version table); it turns the gate on for the rest of t.
func overallLocalhostGate(t *testing.T) bool {
	if !nativeVersion().NFTablesLocalhostNodePorts() {
		return false
	}
	gate := featuregate.Feature(scenario.FeatureGateNFTablesLocalhostNodePorts)
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, gate, true)
	return true
}
