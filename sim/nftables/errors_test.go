package nftables

import (
	"strings"
	"testing"
)

const tableAndChains = "add table ip t\nadd chain ip t a\nadd chain ip t b\nadd map ip t m { type ipv4_addr : verdict ; }\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no table", "add chain ip t c", "line 1: table ip t does not exist"},
		{"jump to missing chain", tableAndChains + "add rule ip t a jump zz", "line 5: rule \"jump zz\": chain zz does not exist"},
		{"missing set", tableAndChains + "add rule ip t a ip daddr @nope drop", "line 5: rule \"ip daddr @nope drop\": set nope does not exist"},
		{"delete referenced chain", tableAndChains + "add rule ip t a jump b\ndelete chain ip t b", "line 6: chain b is still referenced by a rule of chain a"},
		{"delete chain used by map", tableAndChains + "add element ip t m { 1.2.3.4 : goto b }\ndelete chain ip t b", "line 6: chain b is still referenced by an element of map m"},
		{"element changes value", tableAndChains + "add element ip t m { 1.2.3.4 : goto a }\nadd element ip t m { 1.2.3.4 : goto b }", "line 6: element 1.2.3.4 of m already exists with another value"},
		{"delete missing element", tableAndChains + "delete element ip t m { 9.9.9.9 }", "line 5: element 9.9.9.9 of m does not exist"},
		{"element to missing chain", tableAndChains + "add element ip t m { 1.2.3.4 : goto zz }", "line 5: element 1.2.3.4 of m: chain zz does not exist"},
		{"key arity", tableAndChains + "add element ip t m { 1.2.3.4 . tcp : goto a }", "key has 2 fields, type has 1"},
		{"unterminated string", "add table ip t { comment \"x ; }", "line 1: unterminated string"},
		{"missing brace", "add table ip t\nadd map ip t m { type ipv4_addr : verdict ;", "line 2: missing }"},
		{"unknown command", "frobnicate table ip t", "line 1: unknown command \"frobnicate\""},
		{"bad priority", "add table ip t\nadd chain ip t c { type nat hook output priority sideways ; }", "line 2: chain c: unknown priority \"sideways\""},
		{"bad numgen", tableAndChains + "add rule ip t a numgen random mod 0 vmap { 0 : goto b }", "line 5: numgen: bad modulus \"0\""},
		{"bad verdict", tableAndChains + "add rule ip t a numgen random mod 1 vmap { 0 : hop b }", "bad verdict"},
		{"listing missing brace", "table ip t {\n\tchain a {\n\t\taccept\n", "line 4: chain a: missing }"},
		{"stray brace", "}", "line 1: unexpected }"},
		{"dnat without address", tableAndChains + "add rule ip t a dnat to nowhere", "line 5: dnat to \"nowhere\": not an address"},
		{"rule handle", tableAndChains + "add rule ip t a handle 3 accept", "positions and handles are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseString(tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestExpressions(t *testing.T) {
	tests := []struct {
		rule, want string
	}{
		{"ip daddr . meta l4proto . th dport vmap @m", "{Key:[ip daddr meta l4proto th dport] MapRef:m Anon:[]}"},
		{"ip daddr 172.30.0.43 ip saddr != 10.0.0.0/8 jump a", "{Left:[ip daddr] Mask:0 HasMask:false Op:== Right:{Literals:[172.30.0.43] SetRef: Anon:[]}} {Left:[ip saddr] Mask:0 HasMask:false Op:!= Right:{Literals:[10.0.0.0/8] SetRef: Anon:[]}} {Kind:jump Chain:a}"},
		{"numgen random mod 2 vmap { 0 : goto a , 1 : goto b }", "{Mode:random Mod:2 Offset:0 Map:[{Key:0 Verdict:{Kind:goto Chain:a}} {Key:1 Verdict:{Kind:goto Chain:b}}]}"},
		{"meta l4proto tcp dnat to 10.0.3.2:80", "{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} {Kind:dnat Addr:10.0.3.2 Port:80}"},
		{"mark and 0x4000 == 0 return", "{Left:[meta mark] Mask:16384 HasMask:true Op:== Right:{Literals:[0] SetRef: Anon:[]}} {Kind:return Chain:}"},
		{"meta mark set meta mark ^ 0x00004000", "{Op:xor Value:16384}"},
		{"mark set mark or 0x4000", "{Op:or Value:16384}"},
		{"masquerade fully-random", "{Flags:[fully-random]}"},
		{"update @s { ip saddr }", "{Op:update Set:s Key:[ip saddr]}"},
		{"ip saddr @s goto a", "{Left:[ip saddr] Mask:0 HasMask:false Op:== Right:{Literals:[] SetRef:s Anon:[]}} {Kind:goto Chain:a}"},
		{"ct state new,established counter packets 3 bytes 180 jump a", "{Left:[ct state] Mask:0 HasMask:false Op:== Right:{Literals:[new established] SetRef: Anon:[]}} {Packets:3 Bytes:180} {Kind:jump Chain:a}"},
		{"fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @m", "{Left:[fib daddr type] Mask:0 HasMask:false Op:== Right:{Literals:[local] SetRef: Anon:[]}} {Left:[ip daddr] Mask:0 HasMask:false Op:!= Right:{Literals:[127.0.0.0/8] SetRef: Anon:[]}} {Key:[meta l4proto th dport] MapRef:m Anon:[]}"},
		{"ip saddr != { 203.0.113.0/25, 10.1.0.0/16 } drop", "{Left:[ip saddr] Mask:0 HasMask:false Op:!= Right:{Literals:[] SetRef: Anon:[203.0.113.0/25 10.1.0.0/16]}} {Kind:drop Chain:}"},
		{"reject with icmp port-unreachable", "{With:icmp port-unreachable}"},
		{"log prefix \"x\" accept", "{Prefix:x} {Kind:accept Chain:}"},
		{"limit rate 3/minute burst 5 packets log", "{Over:false Rate:3/minute burst 5 packets} {Prefix:}"},
		{"queue num 3", "{Tokens:[queue num 3]}"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rs := mustParse(t, "add table ip t\nadd chain ip t a\nadd chain ip t b\nadd set ip t s { type ipv4_addr ; }\nadd map ip t m { type ipv4_addr . inet_proto . inet_service : verdict ; }\nadd rule ip t a "+tt.rule)
			r := rs.Table("ip", "t").Chain("a").Rules[0]
			var got []string
			for _, x := range r.Exprs {
				got = append(got, strings.TrimPrefix(strings.TrimPrefix(fmtExpr(x), "nftables."), "&"))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}
