package iptables

import (
	"errors"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
)

func TestParseExample(t *testing.T) {
	d := mustParse(t, readTestdata(t, "kube-proxy-example.rules"))
	if len(d.Tables) != 2 || d.Tables[0].Name != "filter" || d.Tables[1].Name != "nat" {
		t.Fatalf("tables = %v", d.Tables)
	}
	nat := d.Table("nat")
	if got := len(nat.Chains); got != 7 {
		t.Errorf("nat chains = %d, want 7", got)
	}
	if got := nat.RuleCount(); got != 15 {
		t.Errorf("nat rules = %d, want 15", got)
	}
	svc := d.Chain("nat", "KUBE-SVC-X27LE4BHSL4DOUIK")
	if svc == nil || len(svc.Rules) != 3 {
		t.Fatalf("KUBE-SVC-X27LE4BHSL4DOUIK = %+v", svc)
	}
	if s := svc.Rules[1].Statistic; s == nil || s.Probability != "0.5000000000" {
		t.Errorf("statistic = %+v", s)
	}
	if r := svc.Rules[1]; r.Line != 35 || r.Target != "KUBE-SEP-DKCFIS26GWF2WLWC" {
		t.Errorf("rule line %d target %s", r.Line, r.Target)
	}
}

// TestPrintRoundTrip checks that printing a parsed dump gives the input back
// (for input already in kube-proxy's style) and that every testdata dump
// survives print and parse unchanged.
func TestPrintRoundTrip(t *testing.T) {
	example := readTestdata(t, "kube-proxy-example.rules")
	if got, want := mustParse(t, example).String(), withoutComments(example); got != want {
		t.Errorf("print(parse(example)) differs:\n%s", golden.Diff(want, got))
	}
	for _, name := range []string{"kube-proxy-example.save", "kube-proxy-example-loadable.nft-save", "features.rules", "features.nft-save-counters", "features.legacy-save"} {
		first := mustParse(t, readTestdata(t, name)).String()
		if second := mustParse(t, first).String(); second != first {
			t.Errorf("%s: print is not stable:\n%s", name, golden.Diff(first, second))
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, dump, want string }{
		{"rule for undeclared chain", "*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SVC-X -j ACCEPT\nCOMMIT\n",
			`line 3: rule for undeclared chain "KUBE-SVC-X" in table nat`},
		{"-X after rules", "*nat\n:KUBE-SVC-X - [0:0]\n-A KUBE-SVC-X -j ACCEPT\n-X KUBE-SVC-X\nCOMMIT\n",
			`line 4: -X after rules: chain "KUBE-SVC-X" in table nat already has 1 rule(s)`},
		{"rule after -X", "*nat\n:KUBE-SVC-X - [0:0]\n-X KUBE-SVC-X\n-A KUBE-SVC-X -j ACCEPT\nCOMMIT\n",
			`line 4: rule for chain "KUBE-SVC-X" in table nat after -X`},
		{"-X of undeclared chain", "*nat\n-X KUBE-SVC-X\nCOMMIT\n", `line 2: -X of undeclared chain "KUBE-SVC-X" in table nat`},
		{"-X of built-in chain", "*nat\n:PREROUTING ACCEPT [0:0]\n-X PREROUTING\nCOMMIT\n", `line 3: -X of built-in chain "PREROUTING" in table nat`},
		{"missing COMMIT at end", "*nat\n:KUBE-SERVICES - [0:0]\n", `line 2: missing COMMIT for table "nat"`},
		{"missing COMMIT before next table", "*nat\n*filter\nCOMMIT\n", `line 2: missing COMMIT for table "nat" before *filter`},
		{"unknown table", "*natt\nCOMMIT\n", `line 1: unknown table "natt"`},
		{"chain declared twice in one block of a table given twice", "*nat\n:X - [0:0]\nCOMMIT\n*nat\n:X - [0:0]\n:X - [0:0]\nCOMMIT\n", `line 6: chain "X" declared twice in table nat`},
		{"unquoted comment of several words", "*filter\n:X - [0:0]\n-A X -m comment --comment hello world -j ACCEPT\nCOMMIT\n",
			`line 3: rule in chain X: bad argument "world" (a word that is no option; is a comment of several words unquoted?)`},
		{"insert beyond the end", "*nat\n:X - [0:0]\n-I X 2 -j ACCEPT\nCOMMIT\n", `line 3: -I X 2: index of insertion too big (the chain has 0 rule(s))`},
		{"line outside a table", ":KUBE-SERVICES - [0:0]\n", `line 1: ":KUBE-SERVICES - [0:0]" outside a table (missing *table line)`},
		{"unterminated quote", "*nat\n:X - [0:0]\n-A X -m comment --comment \"oops -j ACCEPT\nCOMMIT\n", `line 3: unterminated quote`},
		{"bad IP", "*nat\n:X - [0:0]\n-A X -d 10.0.0.300 -j ACCEPT\nCOMMIT\n", `line 3: rule in chain X: -d: bad IP address "10.0.0.300"`},
		{"bad policy", "*nat\n:KUBE-X ACCEPT [0:0]\nCOMMIT\n", `line 2: bad policy "ACCEPT" for chain "KUBE-X" in table nat`},
		{"chain declared twice", "*nat\n:X - [0:0]\n:X - [0:0]\nCOMMIT\n", `line 3: chain "X" declared twice in table nat`},
		{"bad counters", "*nat\n:X - [a:0]\nCOMMIT\n", `line 2: bad counters "a":"0"`},
		{"unsupported command", "*nat\n:X - [0:0]\n-D X 1\nCOMMIT\n", `line 3: unsupported line "-D X 1" (only -A, -I and -X commands are modelled)`},
		{"bad declaration", "*nat\n:X\nCOMMIT\n", `line 2: bad chain declaration "X" (want :NAME POLICY [packets:bytes])`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseString(tc.dump)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %s", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line == 0 {
				t.Errorf("error %v is not a *ParseError with a line", err)
			}
		})
	}
}

func TestParseAcceptsSaveFormAndCounters(t *testing.T) {
	d := mustParse(t, readTestdata(t, "features.nft-save-counters"))
	pre := d.Chain("nat", "PREROUTING")
	if pre == nil || pre.Policy != "ACCEPT" || len(pre.Rules) != 1 || pre.Rules[0].Counters == nil {
		t.Fatalf("PREROUTING = %+v", pre)
	}
	if !strings.HasPrefix(pre.Rules[0].String(), "[0:0] -A PREROUTING ") {
		t.Errorf("counters not printed back: %s", pre.Rules[0])
	}
}

func TestParseLongLine(t *testing.T) {
	long := "*nat\n:X - [0:0]\n-A X -m comment --comment " + strings.Repeat("a", 1<<20) + " -j ACCEPT\nCOMMIT\n"
	d := mustParse(t, long)
	if got := len(d.Chain("nat", "X").Rules[0].Comment); got != 1<<20 {
		t.Errorf("comment length %d", got)
	}
}

// TestParseRestoreForms: what iptables-restore v1.8.9 accepts (checked in a
// scratch namespace): "-" as a built-in chain's policy, "-I CHAIN N", and a
// table given twice, which --noflush continues (svclab render --jumps).
func TestParseRestoreForms(t *testing.T) {
	d := mustParse(t, "*filter\n:INPUT - [0:0]\n:KUBE-FIREWALL - [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n"+
		"*filter\n-I INPUT 1 -j KUBE-FIREWALL\n-I INPUT 3 -j DROP\n-I OUTPUT -j KUBE-FIREWALL\nCOMMIT\n")
	if len(d.Tables) != 1 {
		t.Fatalf("%d tables, want the filter table once", len(d.Tables))
	}
	in := d.Chain("filter", "INPUT")
	if in.Policy != "-" {
		t.Errorf("INPUT policy %q, want - (kept)", in.Policy)
	}
	var got []string
	for _, r := range in.Rules {
		got = append(got, r.Target)
	}
	if strings.Join(got, " ") != "KUBE-FIREWALL ACCEPT DROP" {
		t.Errorf("INPUT rules %v, want KUBE-FIREWALL ACCEPT DROP", got)
	}
	if out := d.Chain("filter", "OUTPUT"); out == nil || len(out.Rules) != 1 || !out.Implicit {
		t.Errorf("OUTPUT = %+v", out)
	}
	if back := mustParse(t, d.String()); back.String() != d.String() {
		t.Errorf("round trip changed the dump:\n%s\n%s", d, back)
	}
}

// TestParseRepeatedModules: a module loaded twice is two matches, as in
// Calico's and Cilium's rules; within one instance an option given twice
// is still an error.
func TestParseRepeatedModules(t *testing.T) {
	r, err := ParseRule("-A X -m mark ! --mark 0xe00/0xf00 -m mark ! --mark 0xd00/0xf00 -m addrtype ! --src-type LOCAL -m addrtype --src-type LOCAL --limit-iface-out -j ACCEPT")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.EarlierMarks) != 1 || r.Mark == nil || r.Mark.Value != 0xd00 || len(r.EarlierAddrTypes) != 1 || !r.EarlierAddrTypes[0].SrcNegated {
		t.Errorf("rule = %+v", r)
	}
	if _, err := ParseRule("-A X -m mark --mark 1 --mark 2 -j ACCEPT"); err == nil {
		t.Error("--mark twice in one instance accepted")
	}
}
