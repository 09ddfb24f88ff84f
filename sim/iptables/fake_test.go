package iptables

import (
	"strings"
	"testing"
)

// fullSync is a full restore before the example's partial sync: ns3/svc3 has
// one endpoint, ns1/svc1 and ns4/svc4 exist with theirs.
const fullSync = `*filter
:KUBE-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
:KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]
:KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]
:KUBE-SEP-DKCFIS26GWF2WLWC - [0:0]
:KUBE-SVC-4SW47YFZTEDKD3PK - [0:0]
:KUBE-SEP-UKSFD7AGPMPPLUHC - [0:0]
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
-A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVC-X27LE4BHSL4DOUIK
-A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.0.3.2:80" -j KUBE-SEP-DKCFIS26GWF2WLWC
-A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.2:80
-A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j KUBE-SVC-4SW47YFZTEDKD3PK
-A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.4:80" -j KUBE-SEP-UKSFD7AGPMPPLUHC
-A KUBE-SEP-UKSFD7AGPMPPLUHC -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.4:80
COMMIT
`

func restore(t *testing.T, f *Fake, input string, noflush bool) {
	t.Helper()
	if err := f.Restore([]byte(input), noflush); err != nil {
		t.Fatalf("restore: %v", err)
	}
}

func TestFakePartialSync(t *testing.T) {
	f := NewFake()
	restore(t, f, fullSync, false)
	restore(t, f, readTestdata(t, "kube-proxy-example.rules"), true)

	d := f.Dump
	if c := d.Chain("nat", "KUBE-SVC-X27LE4BHSL4DOUIK"); c == nil || len(c.Rules) != 3 {
		t.Errorf("svc3 chain not replaced: %+v", c)
	}
	if c := d.Chain("nat", "KUBE-SVC-XPGD46QRK7WJZT7O"); c == nil || len(c.Rules) != 1 {
		t.Errorf("svc1 chain, not in the partial restore, was not kept: %+v", c)
	}
	if c := d.Chain("nat", "KUBE-SEP-JVVZVJ7BSEPPRNBS"); c == nil {
		t.Error("new SEP chain not added")
	}
	if c := d.Chain("nat", "PREROUTING"); c == nil || c.Policy != "ACCEPT" {
		t.Errorf("built-in chain missing: %+v", c)
	}
	if got := d.Chain("filter", "KUBE-FORWARD").Rules; len(got) != 3 {
		t.Errorf("KUBE-FORWARD has %d rules, want the 3 of the partial restore", len(got))
	}
	if rep := CheckJumps(d); rep.Err() != nil {
		t.Errorf("state after partial sync has bad jumps: %v", rep.Err())
	}
	if f.Restores != 2 || f.Failures != 0 {
		t.Errorf("restores %d failures %d", f.Restores, f.Failures)
	}
}

func TestFakeRejectsAndRollsBack(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"partial restore without the chains it jumps to", "", `jumps to a non-existent chain`},
		{"deleting a chain still referenced", "*nat\n:KUBE-SVC-4SW47YFZTEDKD3PK - [0:0]\n-X KUBE-SVC-4SW47YFZTEDKD3PK\nCOMMIT\n",
			`deleted chain "KUBE-SVC-4SW47YFZTEDKD3PK" is referenced by existing rules`},
		{"parse error", "*nat\n-A NOPE -j ACCEPT\nCOMMIT\n", `line 2: rule for undeclared chain "NOPE" in table nat`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFake()
			input := tc.input
			if input == "" {
				input = readTestdata(t, "kube-proxy-example.rules")
			} else {
				restore(t, f, fullSync, false)
			}
			before := f.Save()
			err := f.Restore([]byte(input), true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if f.Save() != before || f.Failures != 1 {
				t.Errorf("state changed after a failed restore (failures %d)", f.Failures)
			}
		})
	}
}

func TestApplyFlushAndDelete(t *testing.T) {
	f := NewFake()
	restore(t, f, fullSync, false)
	// Without --noflush the nat table is replaced: svc1's chains vanish.
	restore(t, f, "*nat\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n", false)
	if c := f.Dump.Chain("nat", "KUBE-SVC-XPGD46QRK7WJZT7O"); c != nil {
		t.Error("flush kept an unmentioned chain")
	}
	if c := f.Dump.Chain("filter", "KUBE-FORWARD"); c == nil {
		t.Error("a table the input does not mention was flushed")
	}
	// Under --noflush an undeclared built-in chain is appended to; -X deletes.
	restore(t, f, "*nat\n:KUBE-OLD - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n", true)
	if got := len(f.Dump.Chain("nat", "PREROUTING").Rules); got != 2 {
		t.Errorf("PREROUTING has %d rules, want 2 (appended)", got)
	}
	restore(t, f, "*nat\n:KUBE-OLD - [0:0]\n-X KUBE-OLD\nCOMMIT\n", true)
	if f.Dump.Chain("nat", "KUBE-OLD") != nil {
		t.Error("-X did not delete the chain")
	}
}
