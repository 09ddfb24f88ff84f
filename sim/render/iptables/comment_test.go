package iptables

import (
	"strings"
	"testing"

	simipt "github.com/svclab/svclab/sim/iptables"
)

func TestCommentWord(t *testing.T) {
	tests := []struct {
		text  string
		quote bool
		want  string
	}{
		// kube-proxy's own forms (TestOverallIPTablesRules).
		{"ns1/svc1:p80", false, "ns1/svc1:p80"},
		{"ns1/svc1:p80 cluster IP", true, `"ns1/svc1:p80 cluster IP"`},
		{"ns4/svc4:p80 -> 10.180.0.5:80", true, `"ns4/svc4:p80 -> 10.180.0.5:80"`},
		// Names Kubernetes would refuse: made safe.
		{"ns 1/svc1:p80", false, `"ns 1/svc1:p80"`},
		{"ns\n-A KUBE-SERVICES -j ACCEPT/svc1:p80", false, `"ns -A KUBE-SERVICES -j ACCEPT/svc1:p80"`},
		{`ns"1/svc1:p80 cluster IP`, true, `"ns\"1/svc1:p80 cluster IP"`},
		{`ns\1/svc1:p80`, false, `"ns\\1/svc1:p80"`},
		{"ns\r1/svc1:p80 cluster IP", true, `"ns 1/svc1:p80 cluster IP"`},
	}
	for _, tt := range tests {
		got := commentWord(tt.text, tt.quote)
		if got != tt.want {
			t.Errorf("commentWord(%q, %v) = %s, want %s", tt.text, tt.quote, got, tt.want)
		}
		words, err := simipt.SplitWords("--comment " + got)
		if err != nil || len(words) != 2 {
			t.Errorf("commentWord(%q) = %s reads back as %q (%v)", tt.text, got, words, err)
		}
	}
	long := strings.Repeat("n", 300) + "/svc:p"
	if w, _ := simipt.SplitWords(commentWord(long+" cluster IP", true)); len(w) != 1 || len(w[0]) != maxComment {
		t.Errorf("a long comment reads back as %d words, %d bytes; want one of %d", len(w), len(w[0]), maxComment)
	}
}
