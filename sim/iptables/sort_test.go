package iptables

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
)

// TestCanonicalExample shuffles kube-proxy's example the way kube-proxy's map
// iteration would and checks that Canonical restores kube-proxy's own
// sorted expectation byte for byte.
func TestCanonicalExample(t *testing.T) {
	got, err := Canonical(readTestdata(t, "kube-proxy-example.shuffled.rules"))
	if err != nil {
		t.Fatal(err)
	}
	if want := withoutComments(readTestdata(t, "kube-proxy-example.rules")); got != want {
		t.Errorf("Canonical differs from kube-proxy's sorted output:\n%s", golden.Diff(want, got))
	}
}

func TestCanonicalCases(t *testing.T) {
	dedent := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		for i := range lines {
			lines[i] = strings.TrimSpace(lines[i])
		}
		return strings.Join(lines, "\n") + "\n"
	}
	tests := []struct{ name, in, want string }{
		{"service names in different comment styles", `
			*nat
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" -j KUBE-SVC-A
			-A KUBE-SERVICES -m comment --comment ns2/svc2 -j KUBE-SVC-B
			-A KUBE-SERVICES -m comment --comment "ns1/svc1 blah" -j KUBE-SVC-C
			-A KUBE-SERVICES -m comment --comment ns1/svc1:p81 -j KUBE-SVC-D
			COMMIT`, `
			*nat
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment "ns1/svc1 blah" -j KUBE-SVC-C
			-A KUBE-SERVICES -m comment --comment ns1/svc1:p81 -j KUBE-SVC-D
			-A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" -j KUBE-SVC-A
			-A KUBE-SERVICES -m comment --comment ns2/svc2 -j KUBE-SVC-B
			COMMIT`},
		{"chain order and untouched rule order elsewhere", `
			*nat
			:WHY-IS-THIS-HERE - [0:0]
			:KUBE-ZZZ - [0:0]
			:KUBE-SERVICES - [0:0]
			:KUBE-AAA - [0:0]
			:KUBE-NODEPORTS - [0:0]
			-A KUBE-ZZZ -m comment --comment "ns9/b"
			-A KUBE-ZZZ -m comment --comment "ns1/a"
			-A WHY-IS-THIS-HERE -j ACCEPT
			-A KUBE-NODEPORTS -m comment --comment ns2/b -j KUBE-AAA
			-A KUBE-NODEPORTS -m comment --comment ns1/a -j KUBE-AAA
			COMMIT`, `
			*nat
			:KUBE-NODEPORTS - [0:0]
			:KUBE-SERVICES - [0:0]
			:KUBE-AAA - [0:0]
			:KUBE-ZZZ - [0:0]
			:WHY-IS-THIS-HERE - [0:0]
			-A KUBE-NODEPORTS -m comment --comment ns1/a -j KUBE-AAA
			-A KUBE-NODEPORTS -m comment --comment ns2/b -j KUBE-AAA
			-A KUBE-ZZZ -m comment --comment ns9/b
			-A KUBE-ZZZ -m comment --comment ns1/a
			-A WHY-IS-THIS-HERE -j ACCEPT
			COMMIT`},
		{"the last-rule exception applies to nat only", `
			*filter
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment "zz must be the last rule" -j ACCEPT
			-A KUBE-SERVICES -m comment --comment "aa/b" -j ACCEPT
			COMMIT
			*nat
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment "aa must be the last rule" -j ACCEPT
			-A KUBE-SERVICES -m comment --comment "zz/b" -j ACCEPT
			COMMIT`, `
			*filter
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment aa/b -j ACCEPT
			-A KUBE-SERVICES -m comment --comment "zz must be the last rule" -j ACCEPT
			COMMIT
			*nat
			:KUBE-SERVICES - [0:0]
			-A KUBE-SERVICES -m comment --comment zz/b -j ACCEPT
			-A KUBE-SERVICES -m comment --comment "aa must be the last rule" -j ACCEPT
			COMMIT`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(dedent(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if want := dedent(tc.want); got != want {
				t.Errorf("Canonical:\n%s", golden.Diff(want, got))
			}
		})
	}
}
