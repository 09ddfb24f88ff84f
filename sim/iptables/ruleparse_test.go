package iptables

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func mustRule(t *testing.T, line string) *Rule {
	t.Helper()
	r, err := ParseRule(line)
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", line, err)
	}
	return r
}

func TestParseRuleFields(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(t *testing.T, r *Rule)
	}{
		{"kube-proxy cluster IP rule", `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O`,
			func(t *testing.T, r *Rule) {
				want := AddrMatch{Set: true, Prefix: netip.MustParsePrefix("172.30.0.41/32")}
				if r.Destination != want || r.Protocol.Name != "tcp" || r.DestPort != (PortMatch{Set: true, Lo: 80, Hi: 80}) {
					t.Errorf("dst %+v proto %+v dport %+v", r.Destination, r.Protocol, r.DestPort)
				}
				if r.Comment != "ns1/svc1:p80 cluster IP" || r.Target != "KUBE-SVC-XPGD46QRK7WJZT7O" || r.Goto || !r.Jumps() {
					t.Errorf("comment %q target %q", r.Comment, r.Target)
				}
			}},
		{"save form with negated source", `-A KUBE-SVC-X -d 172.30.0.43/32 ! -s 10.0.0.0/8 -p tcp -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ`,
			func(t *testing.T, r *Rule) {
				if !r.Source.Negated || r.Source.Prefix != netip.MustParsePrefix("10.0.0.0/8") {
					t.Errorf("source %+v", r.Source)
				}
			}},
		{"statistic", `-A S -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-A`,
			func(t *testing.T, r *Rule) {
				s := r.Statistic
				if s == nil || s.Mode != "random" || s.Probability != "0.50000000000" || s.ProbabilityValue != 0.5 || s.Effective() != 0.5 {
					t.Errorf("statistic %+v", s)
				}
			}},
		{"recent check in save form", `-A S -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-I77PXRDZVX7PMWMN --mask 255.255.255.255 --rsource -j KUBE-SEP-I77PXRDZVX7PMWMN`,
			func(t *testing.T, r *Rule) {
				want := RecentMatch{Name: "KUBE-SEP-I77PXRDZVX7PMWMN", Check: true, Seconds: 10800, Reap: true, Mask: "255.255.255.255", Source: true}
				if r.Recent == nil || *r.Recent != want {
					t.Errorf("recent %+v", r.Recent)
				}
			}},
		{"recent set before protocol", `-A SEP -m comment --comment ns5/svc5:p80 -m recent --name KUBE-SEP-X --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80`,
			func(t *testing.T, r *Rule) {
				if r.Recent == nil || !r.Recent.Set || r.Recent.Name != "KUBE-SEP-X" {
					t.Errorf("recent %+v", r.Recent)
				}
				if r.NAT == nil || r.NAT.Addr != netip.MustParseAddrPort("10.180.0.3:80") || !slices.Equal(r.TargetArgs, []string{"--to-destination", "10.180.0.3:80"}) {
					t.Errorf("nat %+v args %q", r.NAT, r.TargetArgs)
				}
			}},
		{"addrtype, negated mark, MARK xor", `-A P -m addrtype ! --src-type LOCAL --dst-type LOCAL -m mark ! --mark 0x4000/0x4000 -j MARK --xor-mark 0x4000`,
			func(t *testing.T, r *Rule) {
				if a := r.AddrType; a == nil || a.SrcType != "LOCAL" || !a.SrcNegated || a.DstType != "LOCAL" || a.DstNegated {
					t.Errorf("addrtype %+v", a)
				}
				if m := r.Mark; m == nil || !m.Negated || m.Value != 0x4000 || m.Mask != 0x4000 {
					t.Errorf("mark %+v", m)
				}
				if v, m := r.SetMark.XMark(); v != 0x4000 || m != 0 {
					t.Errorf("xmark %#x/%#x", v, m)
				}
			}},
		{"REJECT, ctstate, set, nfacct", `-A F -m conntrack --ctstate NEW -m set --match-set KUBE-CLUSTER-IP dst,dst -m nfacct --nfacct-name X -j REJECT --reject-with icmp-port-unreachable`,
			func(t *testing.T, r *Rule) {
				if c := r.CTState; c == nil || !slices.Equal(c.States, []string{"NEW"}) || c.Negated {
					t.Errorf("ctstate %+v", c)
				}
				if s := r.MatchSet; s == nil || s.Name != "KUBE-CLUSTER-IP" || !slices.Equal(s.Flags, []string{"dst", "dst"}) {
					t.Errorf("set %+v", s)
				}
				if r.NFAcctName != "X" || r.RejectWith != "icmp-port-unreachable" {
					t.Errorf("nfacct %q reject %q", r.NFAcctName, r.RejectWith)
				}
			}},
		{"goto", `-A P -g KUBE-X`, func(t *testing.T, r *Rule) {
			if !r.Goto || r.Target != "KUBE-X" {
				t.Errorf("goto %v target %q", r.Goto, r.Target)
			}
		}},
		{"counters prefix", `[12:720] -A P -j MASQUERADE --random-fully`, func(t *testing.T, r *Rule) {
			if r.Counters == nil || *r.Counters != (Counters{12, 720}) || !r.RandomFully {
				t.Errorf("counters %+v random-fully %v", r.Counters, r.RandomFully)
			}
		}},
		{"unknown module and options kept", `-A P -m physdev --physdev-is-bridged -m conntrack --ctstatus CONFIRMED -j ACCEPT`, func(t *testing.T, r *Rule) {
			want := []UnknownMatch{{Module: "physdev"}, {Module: "physdev", Option: "--physdev-is-bridged", Args: []string{}}, {Module: "conntrack", Option: "--ctstatus", Args: []string{"CONFIRMED"}}}
			if len(r.Unknown) != len(want) {
				t.Fatalf("unknown = %+v", r.Unknown)
			}
			for i := range want {
				if r.Unknown[i].Module != want[i].Module || r.Unknown[i].Option != want[i].Option || !slices.Equal(r.Unknown[i].Args, want[i].Args) {
					t.Errorf("unknown[%d] = %+v, want %+v", i, r.Unknown[i], want[i])
				}
			}
		}},
		{"rule without target", `-A KUBE-FW-X -m comment --comment "other traffic to ns5/svc5:p80 will be dropped by KUBE-PROXY-FIREWALL"`, func(t *testing.T, r *Rule) {
			if r.Target != "" || r.Jumps() {
				t.Errorf("target %q", r.Target)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRule(t, tc.line)
			tc.check(t, r)
			if got := r.String(); strings.TrimPrefix(got, "[12:720] ") != strings.TrimPrefix(tc.line, "[12:720] ") {
				t.Errorf("String() = %q, want the input back", got)
			}
		})
	}
}

func TestParseRuleErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{`-j ACCEPT`, `rule does not start with "-A CHAIN"`},
		{`-A X -d 10.0.0.300 -j ACCEPT`, `rule in chain X: -d: bad IP address "10.0.0.300"`},
		{`-A X -s 10.0.0.0/33 -j ACCEPT`, `bad IP address "10.0.0.0/33"`},
		{`-A X -p tcp --dport 99999 -j ACCEPT`, `--dport: bad port "99999"`},
		{`-A X -m statistic --mode random --probability 1.5 -j Y`, `bad probability "1.5"`},
		{`-A X -m comment ! --comment x`, `option --comment cannot be negated`},
		{`-A X -m comment --comment`, `option --comment needs 1 argument(s)`},
		{`-A X -j A -j B`, `second target "B" after "A"`},
		{`-A X --frobnicate 1`, `unknown option --frobnicate (no match module loaded)`},
		{`-A X -m conntrack --ctstate BOGUS -j ACCEPT`, `unknown conntrack state "BOGUS"`},
		{`-A X -j DNAT --to-destination 10.0.0.1:99999`, `bad NAT address`},
		{`-A X -j MARK --or-mark 0x1/0x1`, `no mask allowed`},
		{`-A X ! ! -s 1.2.3.4`, `"!" given twice`},
		{`-A X -s 1.2.3.4 !`, `"!" at the end of the rule`},
		{`-A X -m comment --comment "open`, `unterminated quote`},
		{`-A THIS-CHAIN-NAME-IS-FAR-TOO-LONG -j ACCEPT`, `longer than 28 characters`},
		{`-A X -p tcp -p udp -j ACCEPT`, `-p: given more than once`},
		{`-A X -m mark --mark 1 --mark 2 -j ACCEPT`, `--mark: given more than once`},
		{`-A X -m statistic --mode random -j Y`, `random mode takes --probability`},
		{`-A X -m recent --name L -j Y`, `exactly one of --set, --rcheck`},
		{`-A X -j DNAT`, `DNAT: a --to-destination/--to-source address is required`},
	}
	for _, tc := range tests {
		_, err := ParseRule(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRule(%q) error = %v, want it to contain %q", tc.line, err, tc.want)
		}
	}
}
