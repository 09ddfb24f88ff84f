package nftables

import (
	"strings"
	"testing"
)

// txBase is a table with a chain, a set and a verdict map, as kube-proxy
// starts its transactions.
const txBase = `add table ip kube-proxy { comment "rules for kube-proxy" ; }
add chain ip kube-proxy services
add chain ip kube-proxy svc-a
add set ip kube-proxy cluster-ips { type ipv4_addr ; }
add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
`

// TestTransactionStateApply: each case's transactions applied in order to
// an empty state leave the dump (after SortTransaction, as kube-proxy's
// tests compare) or fail on the last transaction with the error, leaving
// the state as the transactions before it left it.
func TestTransactionStateApply(t *testing.T) {
	tests := []struct {
		name    string
		txs     []string
		want    string // the dump; "" with err
		wantErr string
	}{
		{"empty", []string{""}, "", ""},
		{"base dumps in the Fake's order", []string{txBase}, strings.TrimSpace(txBase), ""},
		{"objects by kind then name, then rules, set and map elements", []string{`add table ip t
add map ip t m { type ipv4_addr : verdict ; }
add chain ip t z
add set ip t s { type ipv4_addr ; }
add chain ip t a
add counter ip t c
add element ip t m { 10.0.0.1 : drop }
add element ip t s { 10.0.0.2 }
add rule ip t z counter
add rule ip t a counter
`}, `add table ip t
add chain ip t a
add chain ip t z
add set ip t s { type ipv4_addr ; }
add map ip t m { type ipv4_addr : verdict ; }
add counter ip t c
add rule ip t a counter
add rule ip t z counter
add element ip t s { 10.0.0.2 }
add element ip t m { 10.0.0.1 : drop }`, ""},
		{"create verbs dump as add", []string{"create table ip t\ncreate chain ip t a\ncreate set ip t s { type ipv4_addr ; }\ncreate element ip t s { 10.0.0.1 }\n"},
			"add table ip t\nadd chain ip t a\nadd set ip t s { type ipv4_addr ; }\nadd element ip t s { 10.0.0.1 }", ""},
		{"re-adding objects is a no-op, an element replaces its comment, comments and blank lines skipped", []string{txBase + `
# a comment
add chain ip kube-proxy svc-a { comment "other" ; }
add element ip kube-proxy cluster-ips { 10.0.0.1 }
add element ip kube-proxy cluster-ips { 10.0.0.1 comment "again" }
add table ip kube-proxy
`}, txBase + `add element ip kube-proxy cluster-ips { 10.0.0.1 comment "again" }`, ""},
		{"rules keep their order, insert goes first", []string{txBase + `add rule ip kube-proxy services ip daddr @cluster-ips jump svc-a
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
insert rule ip kube-proxy services counter
`}, txBase + `add rule ip kube-proxy services counter
add rule ip kube-proxy services ip daddr @cluster-ips jump svc-a
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips`, ""},
		{"flush chain and map, delete chain and element", []string{txBase + `add rule ip kube-proxy svc-a counter
add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 comment "ns/a:p" : goto svc-a }
add element ip kube-proxy cluster-ips { 10.0.0.1 }
add element ip kube-proxy cluster-ips { 10.0.0.2 }
`, `flush chain ip kube-proxy svc-a
flush map ip kube-proxy service-ips
delete chain ip kube-proxy svc-a
delete element ip kube-proxy cluster-ips { 10.0.0.1 }
`}, strings.Replace(txBase, "add chain ip kube-proxy svc-a\n", "", 1) + "add element ip kube-proxy cluster-ips { 10.0.0.2 }", ""},
		{"delete table empties it", []string{txBase, "delete table ip kube-proxy\n"}, "", ""},
		{"two tables dump by family", []string{txBase, "add table ip6 kube-proxy\nadd chain ip6 kube-proxy services\n"}, txBase + "add table ip6 kube-proxy\nadd chain ip6 kube-proxy services", ""},
		{"create of an existing chain", []string{txBase, "create chain ip kube-proxy svc-a\n"}, "", "chain svc-a exists"},
		{"command before its table", []string{"add chain ip kube-proxy services\n"}, "", "no table ip kube-proxy"},
		{"rule in a missing chain", []string{txBase, "add rule ip kube-proxy nope counter\n"}, "", "rule in missing chain nope"},
		{"rule jumps to a missing chain", []string{txBase, "add rule ip kube-proxy services jump nope\n"}, "", `jump to missing chain "nope"`},
		{"rule looks up a missing set", []string{txBase, "add rule ip kube-proxy services ip daddr @nope drop\n"}, "", `no such set or map "nope"`},
		{"vmap of a set", []string{txBase, "add rule ip kube-proxy services ip daddr vmap @cluster-ips\n"}, "", `no such set or map "cluster-ips"`},
		{"delete of a missing chain", []string{txBase, "delete chain ip kube-proxy nope\n"}, "", "delete of missing chain nope"},
		{"delete of a chain with rules", []string{txBase + "add rule ip kube-proxy svc-a counter\n", "delete chain ip kube-proxy svc-a\n"}, "", "which has 1 rules"},
		{"delete of a chain still jumped to", []string{txBase + "add rule ip kube-proxy services jump svc-a\n", "delete chain ip kube-proxy svc-a\n"}, "", "which a rule of chain services still names"},
		{"delete of a chain a map element goes to", []string{txBase + "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 : goto svc-a }\n", "delete chain ip kube-proxy svc-a\n"}, "", "which element 10.0.0.1 . tcp . 80 of map service-ips still names"},
		{"delete of a set still looked up", []string{txBase + "add rule ip kube-proxy services ip daddr @cluster-ips drop\n", "delete set ip kube-proxy cluster-ips\n"}, "", "which a rule of chain services still names"},
		{"destroy of a missing chain is a no-op", []string{txBase, "destroy chain ip kube-proxy nope\n"}, strings.TrimSpace(txBase), ""},
		{"map element re-added with another value", []string{txBase + "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 : drop }\n", "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 : goto svc-a }\n"}, "", "re-added with value goto svc-a (it has drop"},
		{"map element goes to a missing chain", []string{txBase, "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 : goto nope }\n"}, "", "goto to missing chain nope"},
		{"set element with a value", []string{txBase, "add element ip kube-proxy cluster-ips { 10.0.0.1 : drop }\n"}, "", "only maps take one"},
		{"map element without a value", []string{txBase, "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 }\n"}, "", "has no value"},
		{"delete of a missing element", []string{txBase, "delete element ip kube-proxy cluster-ips { 10.0.0.9 }\n"}, "", "delete of missing element 10.0.0.9"},
		{"element of a missing set", []string{txBase, "add element ip kube-proxy nope { 10.0.0.1 }\n"}, "", "element of missing set or map nope"},
		{"element without braces", []string{txBase, "add element ip kube-proxy cluster-ips 10.0.0.1\n"}, "", "want { KEY"},
		{"unterminated comment", []string{txBase, `add element ip kube-proxy cluster-ips { 10.0.0.1 comment "x }` + "\n"}, "", "unterminated string"},
		{"set named like a map", []string{txBase, "add set ip kube-proxy service-ips { type ipv4_addr ; }\n"}, "", "a map of that name exists"},
		{"unknown family", []string{"add table ipx kube-proxy\n"}, "", `unknown family "ipx"`},
		{"short line", []string{"add table\n"}, "", "want VERB KIND FAMILY TABLE"},
		{"rule by handle", []string{txBase, "delete rule ip kube-proxy services handle 4\n"}, "", "unsupported command \"delete rule\""},
		{"flowtable", []string{txBase, "add flowtable ip kube-proxy ft\n"}, "", `unsupported object kind "flowtable"`},
		{"a failed transaction is undone", []string{txBase, "add chain ip kube-proxy svc-b\nadd rule ip kube-proxy svc-b jump nope\n"}, "", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s TransactionState
			var err error
			before := ""
			for _, tx := range tt.txs {
				before = s.Dump()
				if err = s.Apply(tx); err != nil {
					break
				}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if got := s.Dump(); got != before {
					t.Errorf("state changed by the failed transaction:\n%s\nwas:\n%s", got, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if got := s.Dump(); strings.TrimSpace(got) != want {
				t.Errorf("dump:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// FuzzTransactionStateApply checks that no input makes Apply panic, that a
// failed transaction leaves the state unchanged, and that a dump is a
// transaction that rebuilds the same state in an empty one. Each input is
// applied twice (the second time re-adds and re-deletes). Seeds:
// testdata/fuzz/FuzzTransactionStateApply and the table-driven cases.
func FuzzTransactionStateApply(f *testing.F) {
	f.Add(txBase + "add rule ip kube-proxy services ip daddr @cluster-ips jump svc-a\n")
	f.Add(txBase + "add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 comment \"ns/a:p\" : goto svc-a }\n")
	f.Fuzz(func(t *testing.T, tx string) {
		var s TransactionState
		for range 2 {
			before := s.Dump()
			if err := s.Apply(tx); err != nil {
				if after := s.Dump(); after != before {
					t.Fatalf("failed transaction (%v) changed the state:\n%s\nwas:\n%s", err, after, before)
				}
				continue
			}
			var again TransactionState
			if err := again.Apply(s.Dump()); err != nil {
				t.Fatalf("dump does not apply to an empty state: %v\n%s", err, s.Dump())
			}
			if again.Dump() != s.Dump() {
				t.Fatalf("dump does not rebuild the state:\n%s\nwant:\n%s", again.Dump(), s.Dump())
			}
		}
	})
}
