//go:build !kp135

package conformance

import (
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
)

// overallNFTablesTests are kube-proxy v1.37.2's full-sync tests: the
// objects file, the family, the expected dump.
var overallNFTablesTests = []overallNFTablesTest{
	{"nftables-ipv4.yaml", false, "v1.37.2-TestOverallNFTablesRules.nft"},
	{"nftables-ipv6.yaml", true, "v1.37.2-TestOverallNFTablesRulesIPv6.nft"},
}

// overallLocalhostGate is whether the tests run with the
// KubeProxyNFTablesLocalhostNodePorts gate on (v1.37's do); it turns the
// gate on for the rest of t.
func overallLocalhostGate(t *testing.T) bool {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.KubeProxyNFTablesLocalhostNodePorts, true)
	return true
}
