package iptables

import (
	"slices"
	"testing"
)

func TestCheckJumps(t *testing.T) {
	tests := []struct {
		name     string
		dump     string
		errors   []string
		warnings []string
	}{
		{"valid", `*nat
:KUBE-MARK-MASQ - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-SERVICES -m tcp -p tcp -d 10.20.30.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
-A KUBE-SVC-XPGD46QRK7WJZT7O -m tcp -p tcp -d 10.20.30.41 --dport 80 ! -s 10.0.0.0/24 -j KUBE-MARK-MASQ
COMMIT
`, nil, nil},
		{"jump to a chain that was not created", `*nat
:KUBE-SERVICES - [0:0]
-A KUBE-SERVICES -d 172.30.0.41 -j KUBE-SVC-XPGD46QRK7WJZT7O
COMMIT
`, []string{"table nat, line 3: rule in KUBE-SERVICES jumps to missing chain KUBE-SVC-XPGD46QRK7WJZT7O"}, nil},
		{"goto a deleted chain", `*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-X - [0:0]
-A KUBE-SERVICES -g KUBE-SVC-X
-X KUBE-SVC-X
COMMIT
`, []string{"table nat, line 4: rule in KUBE-SERVICES jumps to missing chain KUBE-SVC-X"}, nil},
		{"jump to a chain with no rules", `*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-X - [0:0]
:KUBE-NODEPORTS - [0:0]
-A KUBE-SERVICES -j KUBE-SVC-X
-A KUBE-SERVICES -j KUBE-NODEPORTS
COMMIT
`, nil, []string{"table nat: chain KUBE-SVC-X is jumped to but has no rules"}},
		{"chain created and not used", `*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-X - [0:0]
:PREROUTING ACCEPT [0:0]
-A KUBE-SVC-X -j ACCEPT
COMMIT
`, nil, []string{"table nat: chain KUBE-SVC-X is created but not used"}},
		{"loop", `*filter
:A - [0:0]
:B - [0:0]
:INPUT ACCEPT [0:0]
-A INPUT -j A
-A A -j B
-A B -j A
COMMIT
`, []string{"table filter: jump loop A -> B -> A"}, nil},
		{"jump to a built-in chain", `*filter
:A - [0:0]
:INPUT ACCEPT [0:0]
-A INPUT -j A
-A A -j INPUT
COMMIT
`, []string{"table filter, line 5: rule in A jumps to built-in chain INPUT", "table filter: jump loop A -> INPUT -> A"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckJumps(mustParse(t, tc.dump))
			if got := problems(rep.Errors); !slices.Equal(got, tc.errors) {
				t.Errorf("errors = %q, want %q", got, tc.errors)
			}
			if got := problems(rep.Warnings); !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings = %q, want %q", got, tc.warnings)
			}
			if (rep.Err() != nil) != (len(tc.errors) > 0) {
				t.Errorf("Err() = %v", rep.Err())
			}
		})
	}
}

func problems(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}
