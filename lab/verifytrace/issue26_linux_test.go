package verifytrace

import "testing"

// TestIssue26Point14FlushRulesetIsNFT: an nft script that starts with
// "flush ruleset" (or another nft command) is verified as nftables, not
// parsed as an iptables dump.
func TestIssue26Point14FlushRulesetIsNFT(t *testing.T) {
	for _, tc := range []struct {
		text string
		nft  bool
	}{
		{"flush ruleset\ntable ip f {\n}\n", true},
		{"#!/usr/sbin/nft -f\n# verify-trace: local=192.168.1.2\nflush ruleset\n\ntable inet filter {\n}\n", true},
		{"delete table ip kube-proxy\nadd table ip kube-proxy\n", true},
		{"table ip f {\n}\n", true},
		{"*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n", false},
		{"# verify-trace: local=1.2.3.4\n*nat\nCOMMIT\n", false},
	} {
		if got := isNFT([]byte(tc.text)); got != tc.nft {
			t.Errorf("isNFT(%q) = %v, want %v", tc.text, got, tc.nft)
		}
	}
}
