package nftables

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/golden"
)

// summary describes a table's meaning as sorted blocks (one per chain or
// set with its rules or elements), ignoring spelling differences between
// the transaction and the listing form (0 vs 0x00000000, a one-element
// anonymous set vs a literal, "mark or" vs "mark |") and the order in which
// the listing prints chains and sets.
func summary(t *Table) string {
	blocks := []string{fmt.Sprintf("table %s %s comment=%q\n", t.Family, t.Name, t.Comment)}
	for _, c := range t.Chains {
		var b strings.Builder
		fmt.Fprintf(&b, "chain %s type=%s hook=%s prio=%d policy=%s comment=%q\n", c.Name, c.Type, c.Hook, c.Priority, c.Policy, c.Comment)
		for _, r := range c.Rules {
			fmt.Fprintf(&b, "  rule %s comment=%q\n", normalExprs(r.Exprs), r.Comment)
		}
		blocks = append(blocks, b.String())
	}
	for _, s := range t.Sets {
		var b strings.Builder
		fmt.Fprintf(&b, "set %s map=%v key=%v data=%s flags=%v timeout=%v comment=%q\n", s.Name, s.IsMap, s.KeyType, s.DataType, s.Flags, s.Timeout, s.Comment)
		var elems []string
		for _, e := range s.Elements {
			elems = append(elems, fmt.Sprintf("  elem %v %v %q\n", e.Key, e.Value, e.Comment))
		}
		sortStrings(elems)
		b.WriteString(strings.Join(elems, ""))
		blocks = append(blocks, b.String())
	}
	sortStrings(blocks)
	return strings.Join(blocks, "")
}

// normalExprs prints expressions with numbers in decimal and one-element
// anonymous sets as literals.
func normalExprs(xs []Expr) string {
	var parts []string
	for _, x := range xs {
		if m, ok := x.(Match); ok {
			if len(m.Right.Anon) == 1 {
				m.Right.Literals, m.Right.Anon = m.Right.Anon, nil
			}
			for i, l := range m.Right.Literals {
				if n, err := strconv.ParseUint(l, 0, 32); err == nil {
					m.Right.Literals[i] = strconv.FormatUint(n, 10)
				}
			}
			x = m
		}
		parts = append(parts, fmt.Sprintf("%+v", x))
	}
	return strings.Join(parts, " ")
}

func mustParse(t *testing.T, src string) *Ruleset {
	t.Helper()
	rs, err := ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestTransactionMatchesListing parses the renderer's transaction and the
// `nft list ruleset` the kernel printed after loading it (captured into
// testdata with `ip netns exec … nft -f - ; nft list ruleset`), and checks
// they describe the same table.
func TestTransactionMatchesListing(t *testing.T) {
	listing, err := os.ReadFile(filepath.Join("testdata", "listing-shapes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fromTx := mustParse(t, renderShapes(t)).Table("ip", "kube-proxy")
	fromList := mustParse(t, string(listing)).Table("ip", "kube-proxy")
	if fromTx == nil || fromList == nil {
		t.Fatal("table ip kube-proxy missing")
	}
	want, got := summary(fromTx), summary(fromList)
	if want != got {
		t.Errorf("listing differs from transaction:\n--- transaction\n%s\n--- listing\n%s", want, got)
	}
	if c := fromList.Chain("filter-prerouting-pre-dnat"); c.PriorityText != "dstnat - 10" || c.Priority != -110 {
		t.Errorf("priority: got %q = %d", c.PriorityText, c.Priority)
	}
}

func TestRoundTrip(t *testing.T) {
	rs := mustParse(t, renderShapes(t))
	var first, second bytes.Buffer
	if err := rs.WriteTransaction(&first); err != nil {
		t.Fatal(err)
	}
	again := mustParse(t, first.String())
	if err := again.WriteTransaction(&second); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Fatal("WriteTransaction is not a fixpoint of parsing")
	}
	if summary(rs.Tables[0]) != summary(again.Tables[0]) {
		t.Fatal("reprinted ruleset differs")
	}
	golden.Check(t, filepath.Join("testdata", "shapes-printed.nft"), first.Bytes())
}

func TestAffinitySetListing(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "listing-affinity-set.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, string(src)).Table("ip", "kube-proxy").Set("affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80")
	if s.Timeout != 3*time.Hour || s.Size != 65535 || strings.Join(s.Flags, ",") != "dynamic,timeout" {
		t.Errorf("set header: %+v", s)
	}
	if len(s.Elements) != 2 || s.Elements[1].Timeout != time.Hour || s.Elements[1].Expires != 59*time.Minute+59*time.Second+988*time.Millisecond {
		t.Errorf("elements: %+v", s.Elements)
	}
}
