package cost

import (
	"fmt"
	"math"
	"testing"
)

// TestCountsMatchRenderers pins the formulas of countsOf against what the
// renderers actually write, over a grid of services and endpoints.
func TestCountsMatchRenderers(t *testing.T) {
	for _, mode := range []string{"iptables", "nftables", "ipvs"} {
		for _, n := range []int{0, 1, 2, 7, 250} {
			for _, m := range []int{0, 1, 2, 5} {
				t.Run(fmt.Sprintf("%s/%dx%d", mode, n, m), func(t *testing.T) {
					want, err := renderStats(mode, n, m)
					if err != nil {
						t.Fatal(err)
					}
					got, err := RulesetSize(mode, n, m)
					if err != nil {
						t.Fatal(err)
					}
					if got.Rules != want.Rules || got.Chains != want.Chains || got.Elements != want.Elements {
						t.Errorf("formula rules %d chains %d elements %d; rendered %d, %d, %d",
							got.Rules, got.Chains, got.Elements, want.Rules, want.Chains, want.Elements)
					}
					if got.Bytes != want.Bytes || !got.BytesExact {
						t.Errorf("bytes %d (exact %v), rendered %d", got.Bytes, got.BytesExact, want.Bytes)
					}
				})
			}
		}
	}
}

// TestSampledBytesCloseToExact: above the exact limit, bytes scaled from a
// sample stay within 1% of the rendered payload.
func TestSampledBytesCloseToExact(t *testing.T) {
	defer func(v int) { exactBytesObjects = v }(exactBytesObjects)
	exactBytesObjects = 6000 // samples of 1000 and 2000 services × 2: over kube-proxy's large-cluster threshold, like the payload
	for _, mode := range []string{"iptables", "nftables", "ipvs"} {
		got, err := RulesetSize(mode, 5000, 2)
		if err != nil {
			t.Fatal(err)
		}
		want, err := renderStats(mode, 5000, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.BytesExact {
			t.Errorf("%s: bytes marked exact above the limit", mode)
		}
		if rel := math.Abs(float64(got.Bytes-want.Bytes)) / float64(want.Bytes); rel > 0.01 {
			t.Errorf("%s: sampled %d bytes, rendered %d (%.2f%% off)", mode, got.Bytes, want.Bytes, 100*rel)
		}
	}
}

func TestRulesetSizeRejects(t *testing.T) {
	tests := []struct {
		mode string
		n, m int
	}{{"iptables", -1, 2}, {"nftables", 1, -2}, {"ebpf", 1, 1}}
	for _, tt := range tests {
		if _, err := RulesetSize(tt.mode, tt.n, tt.m); err == nil {
			t.Errorf("RulesetSize(%q, %d, %d) accepted", tt.mode, tt.n, tt.m)
		}
	}
}
