package topo

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

func TestNewPrefixShape(t *testing.T) {
	shape := regexp.MustCompile(`^svl-[0-9a-f]{4}$`)
	for range 20 {
		if p := NewPrefix(); !shape.MatchString(p) {
			t.Fatalf("NewPrefix() = %q, want svl- and 4 hex digits", p)
		}
	}
}

func TestSpecValidation(t *testing.T) {
	ip := netip.MustParseAddr
	pods := func(n int) []Pod {
		out := make([]Pod, n)
		for i := range out {
			out[i] = Pod{IP: netip.AddrFrom4([4]byte{10, 244, byte(i >> 8), byte(i)})}
		}
		return out
	}
	tests := []struct {
		name    string
		spec    Spec
		wantErr string // "" means valid
	}{
		{"minimal", Spec{Prefix: "svl-3f9a"}, ""},
		{"two pods and a sink", twoPodSpec("svl-3f9a"), ""},
		{"1000 pods fit the veth names", Spec{Prefix: "svl-3f9a", Pods: pods(1000)}, ""},
		{"foreign prefix", Spec{Prefix: "lab-3f9a"}, "run prefix"},
		{"prefix too long for veths", Spec{Prefix: "svl-0123456789", Pods: pods(1)}, "exceed 15"},
		{"pod IPs collide", Spec{Prefix: "svl-a", Pods: []Pod{{IP: ip("10.0.0.1")}, {IP: ip("10.0.0.1")}}}, "already used"},
		{"pod takes the client IP", Spec{Prefix: "svl-a", Pods: []Pod{{IP: DefaultClientIP}}}, "already used by client"},
		{"pod IP missing", Spec{Prefix: "svl-a", Pods: []Pod{{Name: "x"}}}, "not a usable"},
		{"pod IP is IPv6", Spec{Prefix: "svl-a", Pods: []Pod{{IP: ip("fd00::1")}}}, "not a usable"},
		{"pod IP is link-local", Spec{Prefix: "svl-a", Pods: []Pod{{IP: ip("169.254.1.1")}}}, "not a usable"},
		{"reserved pod name", Spec{Prefix: "svl-a", Pods: []Pod{{Name: "node", IP: ip("10.0.0.1")}}}, "DNS label"},
		{"pod name with slash", Spec{Prefix: "svl-a", Pods: []Pod{{Name: "a/b", IP: ip("10.0.0.1")}}}, "DNS label"},
		{"pod names clash", Spec{Prefix: "svl-a", Pods: []Pod{{Name: "p1", IP: ip("10.0.0.1")}, {IP: ip("10.0.0.2")}}}, "used twice"},
		{"sink overlaps gateways", Spec{Prefix: "svl-a", SinkPrefixes: []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16")}}, "overlaps"},
		{"sink prefix IPv6", Spec{Prefix: "svl-a", SinkPrefixes: []netip.Prefix{netip.MustParsePrefix("fd00::/8")}}, "IPv4"},
		{"service CIDR bad", Spec{Prefix: "svl-a", ServiceCIDRs: []netip.Prefix{{}}}, "IPv4"},
		{"dual-stack lab with external client and second node", pathsSpec("svl-a"), ""},
		{"IPv6-only pod", Spec{Prefix: "svl-a", Pods: []Pod{{IPv6: ip("fd00::5")}}}, ""},
		{"pod IPv6 is IPv4", Spec{Prefix: "svl-a", Pods: []Pod{{IP: ip("10.0.0.1"), IPv6: ip("10.0.0.2")}}}, "not a usable IPv6"},
		{"pod IPv6 is link-local", Spec{Prefix: "svl-a", Pods: []Pod{{IPv6: ip("fe80::5")}}}, "not a usable IPv6"},
		{"pod IPv6 collides with the client's", Spec{Prefix: "svl-a", ClientIPv6: ip("fd00::5"), Pods: []Pod{{IPv6: ip("fd00::5")}}}, "already used by client"},
		{"pod on a second node that is not there", Spec{Prefix: "svl-a", Pods: []Pod{{IP: ip("10.0.0.1"), OnSecondNode: true}}}, "no SecondNode"},
		{"external client without addresses", Spec{Prefix: "svl-a", External: &External{}}, "at least one address"},
		{"external client takes the node IP", Spec{Prefix: "svl-a", External: &External{IPs: []netip.Addr{DefaultNodeIP}}}, "already used by node"},
		{"reserved pod name ext", Spec{Prefix: "svl-a", Pods: []Pod{{Name: "ext", IP: ip("10.0.0.1")}}}, "DNS label"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.withDefaults().validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("validate() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("validate() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestNamesFitTheKernelLimits(t *testing.T) {
	prefix := "svl-3f9a"
	for _, name := range []string{podVethName(prefix, 999999), clientVethName(prefix), sinkVethName(prefix), serviceLinkName(prefix), serviceFarLinkName(prefix), externalVethName(prefix), peerLinkName(prefix)} {
		if len(name) > maxLinkName {
			t.Errorf("link name %s has %d characters, limit %d", name, len(name), maxLinkName)
		}
	}
	if got := podNetnsName(prefix, Pod{}, 7); got != "svl-3f9a-p7" {
		t.Errorf("unnamed pod netns = %s", got)
	}
	if got := podNetnsName(prefix, Pod{Name: "web-0"}, 7); got != "svl-3f9a-web-0" {
		t.Errorf("named pod netns = %s", got)
	}
}

func TestBelongsToRun(t *testing.T) {
	tests := []struct {
		name, prefix string
		want         bool
	}{
		{"svl-3f9a-node", "svl-3f9a", true},
		{"svl-3f9a", "svl-3f9a", true},
		{"svl-3f9ab-node", "svl-3f9a", false},
		{"svl-3f9ab-node", "svl-", true},
		{"svl-tabc123", "svl-", true},
		{"other-node", "svl-", false},
	}
	for _, tc := range tests {
		if got := belongsToRun(tc.name, tc.prefix); got != tc.want {
			t.Errorf("belongsToRun(%q, %q) = %v, want %v", tc.name, tc.prefix, got, tc.want)
		}
	}
}
