// Package rendercheck holds the acceptance tests that feed svclab's rendered
// payloads to the real kernel tools (iptables-restore --test, nft -c -f,
// ipset restore) inside scratch network namespaces. It has no non-test code.
package rendercheck
