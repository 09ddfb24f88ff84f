package nftables

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// The kube-proxy v1.36+ layout. testdata/shapes-137.nft is the renderer's
// transaction for shapesModel (a golden file: go test -update rewrites it);
// testdata/listing-shapes-137.txt is what the kernel listed after loading
// it, captured as root with
//
//	ip netns add svl-n137cap
//	ip netns exec svl-n137cap nft -f sim/nftables/testdata/shapes-137.nft
//	ip netns exec svl-n137cap nft list ruleset > sim/nftables/testdata/listing-shapes-137.txt
//	ip netns del svl-n137cap
//
// (lab/rendercheck's TestNFTables137TraceKernel does the same live.)

// renderShapes137 renders shapesModel in the v1.37 layout.
func renderShapes137(t testing.TB) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := rendernft.Render(&buf, shapesModel(), rendernft.Options{Version: render.KubeProxy137}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestV137TransactionMatchesListing(t *testing.T) {
	tx := renderShapes137(t)
	golden.Check(t, filepath.Join("testdata", "shapes-137.nft"), []byte(tx))
	listing, err := os.ReadFile(filepath.Join("testdata", "listing-shapes-137.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fromTx := mustParse(t, tx).Table("ip", "kube-proxy")
	fromList := mustParse(t, string(listing)).Table("ip", "kube-proxy")
	if fromTx == nil || fromList == nil {
		t.Fatal("table ip kube-proxy missing")
	}
	if want, got := summary(fromTx), summary(fromList); want != got {
		t.Errorf("listing differs from transaction:\n%s", golden.Diff(want, got))
	}
	var printed bytes.Buffer
	if err := mustParse(t, tx).WriteTransaction(&printed); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "shapes-137-printed.nft"), printed.Bytes())
	if summary(mustParse(t, printed.String()).Tables[0]) != summary(fromTx) {
		t.Error("reprinted v1.37 ruleset differs")
	}
}

// TestV137Statements parses each v1.36+ statement as knftables writes it
// and as nft lists it.
func TestV137Statements(t *testing.T) {
	tests := []struct{ name, rule, want string }{
		{"single endpoint", "meta l4proto tcp dnat to 10.180.0.1:80",
			"{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} {Kind:dnat Addr:10.180.0.1 Port:80}"},
		{"single endpoint listed with family", "meta l4proto tcp dnat ip to 10.180.0.1:80",
			"{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} {Kind:dnat Addr:10.180.0.1 Port:80}"},
		{"numgen map as written", "meta l4proto tcp dnat ip addr . port to numgen random mod 2 map { 0 : 10.180.0.4 . 80 , 1 : 10.180.0.5 . 80 }",
			"{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} {Kind:dnat Mode:random Mod:2 Offset:0 Targets:[{Key:0 Addr:10.180.0.4 Port:80} {Key:1 Addr:10.180.0.5 Port:80}]}"},
		{"numgen map as listed", "meta l4proto udp dnat ip to numgen random mod 3 map { 0 : 10.0.0.1 . 53, 1 : 10.0.0.2 . 53, 2 : 10.0.0.3 . 5353 }",
			"{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[udp] SetRef: Anon:[]}} {Kind:dnat Mode:random Mod:3 Offset:0 Targets:[{Key:0 Addr:10.0.0.1 Port:53} {Key:1 Addr:10.0.0.2 Port:53} {Key:2 Addr:10.0.0.3 Port:5353}]}"},
		{"numgen map of IPv6 endpoints as listed", "meta l4proto tcp dnat ip6 to numgen random mod 2 map { 0 : fd00:10:244:1::a . 8080, 1 : fd00:10:244:2::b . 8080 }",
			"{Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} {Kind:dnat Mode:random Mod:2 Offset:0 Targets:[{Key:0 Addr:fd00:10:244:1::a Port:8080} {Key:1 Addr:fd00:10:244:2::b Port:8080}]}"},
		{"numgen map with offset, addresses only", "dnat to numgen inc mod 2 offset 5 map { 5 : 10.0.0.1, 6 : 10.0.0.2 }",
			"{Kind:dnat Mode:inc Mod:2 Offset:5 Targets:[{Key:5 Addr:10.0.0.1 Port:0} {Key:6 Addr:10.0.0.2 Port:0}]}"},
		{"hairpin masquerade", "ct status dnat ip saddr . ip daddr . meta l4proto . th dport @hairpin-connections masquerade fully-random",
			"{Left:[ct status] Mask:0 HasMask:false Op:== Right:{Literals:[dnat] SetRef: Anon:[]}} {Left:[ip saddr ip daddr meta l4proto th dport] Mask:0 HasMask:false Op:== Right:{Literals:[] SetRef:hairpin-connections Anon:[]}} {Flags:[fully-random]}"},
		{"mark masquerade", "mark and 0x00004000 != 0 mark set mark xor 0x00004000 masquerade fully-random",
			"{Left:[meta mark] Mask:16384 HasMask:true Op:!= Right:{Literals:[0] SetRef: Anon:[]}} {Op:xor Value:16384} {Flags:[fully-random]}"},
		{"mark masquerade listed", "meta mark & 0x00004000 != 0x00000000 meta mark set meta mark ^ 0x00004000 masquerade fully-random",
			"{Left:[meta mark] Mask:16384 HasMask:true Op:!= Right:{Literals:[0x00000000] SetRef: Anon:[]}} {Op:xor Value:16384} {Flags:[fully-random]}"},
		{"services masquerade", "ip daddr @cluster-ips ip saddr != 10.0.0.0/8 mark set mark or 0x00004000",
			"{Left:[ip daddr] Mask:0 HasMask:false Op:== Right:{Literals:[] SetRef:cluster-ips Anon:[]}} {Left:[ip saddr] Mask:0 HasMask:false Op:!= Right:{Literals:[10.0.0.0/8] SetRef: Anon:[]}} {Op:or Value:16384}"},
		{"services masquerade listed", "ip daddr @cluster-ips ip saddr != 10.0.0.0/8 meta mark set meta mark | 0x00004000",
			"{Left:[ip daddr] Mask:0 HasMask:false Op:== Right:{Literals:[] SetRef:cluster-ips Anon:[]}} {Left:[ip saddr] Mask:0 HasMask:false Op:!= Right:{Literals:[10.0.0.0/8] SetRef: Anon:[]}} {Op:or Value:16384}"},
		{"named counter", `counter name "localhost-nodeport-rejected-tcp" reject`,
			"{Name:localhost-nodeport-rejected-tcp} {With:}"},
	}
	head := "add table ip kube-proxy\nadd counter ip kube-proxy localhost-nodeport-rejected-tcp\n" +
		"add set ip kube-proxy cluster-ips { type ipv4_addr ; }\n" +
		"add set ip kube-proxy hairpin-connections { type ipv4_addr . ipv4_addr . inet_proto . inet_service ; }\n" +
		"add chain ip kube-proxy c\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := mustParse(t, head+"add rule ip kube-proxy c "+tt.rule+"\n")
			r := rs.Tables[0].Chain("c").Rules[0]
			var parts []string
			for _, x := range r.Exprs {
				parts = append(parts, fmt.Sprintf("%+v", x))
			}
			if got := strings.Join(parts, " "); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestV137Errors: what nft refuses, the parser refuses.
func TestV137Errors(t *testing.T) {
	head := "add table ip t\nadd chain ip t c\n"
	tests := []struct{ name, src, want string }{
		{"counter does not exist", head + `add rule ip t c counter name "x" reject` + "\n", "counter x does not exist"},
		{"counter in use", head + "add counter ip t x\nadd rule ip t c counter name \"x\" reject\ndelete counter ip t x\n", "a rule uses it"},
		{"counter name without a name", head + "add counter ip t x\nadd rule ip t c counter name\n", "without a name"},
		{"numgen without map", head + "add rule ip t c dnat ip addr . port to numgen random mod 2\n", "without an anonymous map"},
		{"numgen bad modulus", head + "add rule ip t c dnat ip addr . port to numgen random mod 0 map { 0 : 10.0.0.1 . 80 }\n", "bad modulus"},
		{"numgen bad entry", head + "add rule ip t c dnat ip addr . port to numgen random mod 1 map { 0 : goto c }\n", "map entry"},
		{"numgen bad port", head + "add rule ip t c dnat ip addr . port to numgen random mod 1 map { 0 : 10.0.0.1 . http80 }\n", "map entry"},
		{"listed counter block", "table ip t {\n\tcounter x {\n\t\tpolicy drop\n\t}\n}\n", "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseString(tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestV137CounterListing reads a named counter object from a listing and
// the rule that uses it (as nft lists kube-proxy's localhost-nodeport-reject
// chains with the KubeProxyNFTablesLocalhostNodePorts gate on).
func TestV137CounterListing(t *testing.T) {
	src := "table ip kube-proxy {\n\tcounter localhost-nodeport-rejected-tcp {\n\t\tpackets 3 bytes 180\n\t}\n\n" +
		"\tchain localhost-nodeport-reject-tcp {\n\t\tcounter name \"localhost-nodeport-rejected-tcp\" reject\n\t}\n}\n"
	rs := mustParse(t, src)
	tb := rs.Table("ip", "kube-proxy")
	if strings.Join(tb.Counters, ",") != "localhost-nodeport-rejected-tcp" {
		t.Errorf("counters: %v", tb.Counters)
	}
	var printed bytes.Buffer
	if err := rs.WriteTransaction(&printed); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseString(printed.String()); err != nil {
		t.Errorf("printed transaction does not parse: %v\n%s", err, printed.String())
	}
}

// TestV137ObjectForms parses a named counter, the rule counting into it and
// a numgen DNAT map in all three forms: the transaction
// (testdata/counter-numgen-137.nft) and what the kernel listed after
// loading it in a scratch netns, as text (nft list ruleset > ….txt) and as
// JSON (nft -j list ruleset > ….json).
func TestV137ObjectForms(t *testing.T) {
	const want = "counters [localhost-nodeport-rejected-tcp]\n" +
		"localhost-nodeport-reject-tcp: {Name:localhost-nodeport-rejected-tcp} {With:}\n" +
		"svc: {Left:[meta l4proto] Mask:0 HasMask:false Op:== Right:{Literals:[tcp] SetRef: Anon:[]}} " +
		"{Kind:dnat Mode:random Mod:3 Offset:0 Targets:[{Key:0 Addr:10.0.0.1 Port:80} {Key:1 Addr:10.0.0.2 Port:80} {Key:2 Addr:10.0.0.3 Port:81}]}\n"
	for _, name := range []string{"counter-numgen-137.nft", "counter-numgen-137.txt", "counter-numgen-137.json"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			parse := ParseString
			if strings.HasSuffix(name, ".json") {
				parse = func(s string) (*Ruleset, error) { return ParseJSON(strings.NewReader(s)) }
			}
			rs, err := parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			tb := rs.Table("ip", "kube-proxy")
			got := fmt.Sprintf("counters %v\n", tb.Counters)
			for _, c := range []string{"localhost-nodeport-reject-tcp", "svc"} {
				var parts []string
				for _, x := range tb.Chain(c).Rules[0].Exprs {
					parts = append(parts, fmt.Sprintf("%+v", x))
				}
				got += c + ": " + strings.Join(parts, " ") + "\n"
			}
			// nft -j spells out reject's default, icmp port-unreachable.
			got = strings.Replace(got, "{With:icmp port-unreachable}", "{With:}", 1)
			if got != want {
				t.Errorf("got\n%swant\n%s", got, want)
			}
		})
	}
}
