// Package iptables parses, prints, sorts, normalises and validates iptables
// rule dumps: the iptables-restore input kube-proxy writes and the
// iptables-save output the kernel prints back.
//
// It mirrors the test infrastructure of kube-proxy (pkg/util/iptables/testing
// and pkg/proxy/iptables/proxier_test.go): a streaming parser into typed
// tables, chains and rules ([Parse]); a printer that writes a [Dump] back in
// iptables-restore form ([Dump.WriteTo]); kube-proxy's canonical sort
// ([Sort], [Canonical]); a normal form under which restore input and save
// output compare equal ([Normalize], [NormalizeDump]); the jump checks of
// checkIPTablesRuleJumps ([CheckJumps]); a validating fake of
// `iptables-restore --noflush` ([Apply], [Fake]); and the count of the
// chain-list walking `iptables-nft-restore --noflush` does for a payload
// ([ChainListCompares]), the cost that makes its syncs superquadratic.
//
// The package is pure: it never executes iptables and never touches the
// kernel.
package iptables
