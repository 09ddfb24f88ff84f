package iptables

import (
	"testing"

	"github.com/svclab/svclab/sim/golden"
)

// TestNormalizeRestoreEqualsSave checks that restore input and the
// iptables-save output of the same rules normalise to the same text: a
// hand-written save form, and real output of iptables-nft-save and
// iptables-legacy-save captured in a scratch netns.
func TestNormalizeRestoreEqualsSave(t *testing.T) {
	tests := []struct{ restore, save string }{
		{"kube-proxy-example.rules", "kube-proxy-example.save"},
		{"kube-proxy-example-loadable.rules", "kube-proxy-example-loadable.nft-save"},
		{"kube-proxy-example-loadable.rules", "kube-proxy-example-loadable.legacy-save"},
		{"features.rules", "features.nft-save-counters"},
		{"features.rules", "features.legacy-save"},
	}
	for _, tc := range tests {
		t.Run(tc.save, func(t *testing.T) {
			want := NormalizeDump(mustParse(t, readTestdata(t, tc.restore)))
			got := NormalizeDump(mustParse(t, readTestdata(t, tc.save)))
			if got != want {
				t.Errorf("normalised %s differs from %s:\n%s", tc.save, tc.restore, golden.Diff(want, got))
			}
		})
	}
	checkGolden(t, "kube-proxy-example.normalized", NormalizeDump(mustParse(t, readTestdata(t, "kube-proxy-example.rules"))))
}

func TestNormalizeRules(t *testing.T) {
	tests := []struct {
		name      string
		a, b      string
		wantEqual bool
	}{
		{"1/3 written and read back", `-A S -m statistic --mode random --probability 0.3333333333 -j X`,
			`-A S -m statistic --mode random --probability 0.33333333349 -j X`, true},
		{"1/3 differs from a neighbour 1e-10 away", `-A S -m statistic --mode random --probability 0.3333333333 -j X`,
			`-A S -m statistic --mode random --probability 0.3333333332 -j X`, false},
		{"or-mark is set-xmark v/v", `-A M -j MARK --or-mark 0x4000`, `-A M -j MARK --set-xmark 0x4000/0x4000`, true},
		{"xor-mark is set-xmark v/0", `-A M -j MARK --xor-mark 0x4000`, `-A M -j MARK --set-xmark 0x4000/0x0`, true},
		{"set-mark without mask", `-A M -j MARK --set-mark 0x1`, `-A M -j MARK --set-xmark 0x1/0xffffffff`, true},
		{"and-mark", `-A M -j MARK --and-mark 0xff`, `-A M -j MARK --set-xmark 0x0/0xffffff00`, true},
		{"host /32 and match order", `-A X -m comment --comment c -m tcp -p tcp -d 1.2.3.4 --dport 80 -j Y`,
			`-A X -d 1.2.3.4/32 -p tcp -m comment --comment "c" -m tcp --dport 80 -j Y`, true},
		{"recent defaults", `-A X -m recent --name L --rcheck --seconds 10800 --reap -j Y`,
			`-A X -m recent --rcheck --seconds 10800 --reap --name L --mask 255.255.255.255 --rsource -j Y`, true},
		{"recent rdest is not the default", `-A X -m recent --name L --rcheck -j Y`, `-A X -m recent --rcheck --name L --rdest -j Y`, false},
		{"default reject-with", `-A X -j REJECT`, `-A X -j REJECT --reject-with icmp-port-unreachable`, true},
		{"ctstate order and state module", `-A X -m state --state ESTABLISHED,RELATED -j ACCEPT`, `-A X -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`, true},
		{"protocol number", `-A X -p 6 -j ACCEPT`, `-A X -p tcp -j ACCEPT`, true},
		{"dotted mask", `-A X -s 10.0.0.0/255.0.0.0 -j ACCEPT`, `-A X -s 10.1.2.3/8 -j ACCEPT`, true},
		{"negation matters", `-A X ! -s 10.0.0.0/8 -j ACCEPT`, `-A X -s 10.0.0.0/8 -j ACCEPT`, false},
		{"counters ignored", `[5:300] -A X -j ACCEPT`, `-A X -j ACCEPT`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			na, nb := Normalize(mustRule(t, tc.a)), Normalize(mustRule(t, tc.b))
			if (na == nb) != tc.wantEqual {
				t.Errorf("Normalize:\n  %s\n  %s\nequal = %v, want %v", na, nb, na == nb, tc.wantEqual)
			}
		})
	}
}

func TestKernelProbability(t *testing.T) {
	tests := []struct {
		p     float64
		fixed uint32
	}{
		{0.5, 1 << 30},
		{1, 1 << 31},
		{0, 0},
		{0.3333333333, 715827883}, // iptables-save prints 0.33333333349
		{0.0000100000, 21475},     // 21474.83648 rounded: 1.0000076e-05 effective
		{0.1, 214748365},
	}
	for _, tc := range tests {
		if got := KernelProbability(tc.p); got != tc.fixed {
			t.Errorf("KernelProbability(%v) = %d, want %d", tc.p, got, tc.fixed)
		}
		if got, want := EffectiveProbability(tc.p), float64(tc.fixed)/(1<<31); got != want {
			t.Errorf("EffectiveProbability(%v) = %v, want %v", tc.p, got, want)
		}
	}
}
