package nfttrace

import (
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// TestIssue26Point3UnknownStatementIsUnknown: a statement the parser does
// not model swallows the rest of its rule, verdict included, so a rule
// holding one makes the verdict unknown wherever it stands; a modelled
// rule after a non-matching match stays decided.
func TestIssue26Point3UnknownStatementIsUnknown(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"tcp flags & (fin|syn|rst|ack) == syn drop", "unknown"},
		{"meta skuid 0 drop", "unknown"},
		{"ip ttl 64 drop", "unknown"},
		{"queue", "unknown"},
		{"ip dscp cs0 counter drop", "unknown"},
		{"meta priority set 1", "unknown"},
		{"ip saddr 192.0.2.1 meta skuid 0 drop", "accept"}, // the address does not match first
		{"tcp dport 80 drop", "drop"},
	} {
		t.Run(tc.stmt, func(t *testing.T) {
			p := compileText(t, "table ip f {\n\tchain pre {\n\t\ttype filter hook prerouting priority 0; policy accept;\n\t\t"+tc.stmt+"\n\t}\n}\n")
			res, err := p.Trace(trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.1"), Proto: "tcp", DPort: 80})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.want || (tc.want == "unknown" && len(res.Undecided) == 0) {
				t.Errorf("verdict %q (undecided %q), want %q", res.Verdict, res.Undecided, tc.want)
			}
		})
	}
}
