//go:build kp135

package conformance

import "testing"

// overallNFTablesTests are kube-proxy v1.35.4's full-sync tests (it has
// no IPv6 one).
var overallNFTablesTests = []overallNFTablesTest{
	{"nftables-ipv4.yaml", false, "v1.35.4-TestOverallNFTablesRules.nft"},
}

// overallLocalhostGate: v1.35 has no localhost NodePort gate.
func overallLocalhostGate(*testing.T) bool { return false }
