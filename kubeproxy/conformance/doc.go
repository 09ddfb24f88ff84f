// Package conformance is the differential test of svclab's native
// renderers (sim/render/iptables, nftables, ipvs) against kube-proxy's own
// proxiers, driven in-process by package driver. Its tests generate
// seeded random clusters and change sequences, render each sync with both
// engines and compare them after kube-proxy's canonical sort; a difference
// is shrunk to the smallest cluster that still shows it.
package conformance
