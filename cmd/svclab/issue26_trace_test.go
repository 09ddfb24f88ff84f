package main

// Issue 26 ("Reliability, round three"): the points about dumps, parsers
// and tracers that need no root, one test per point, named after it.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svclabRun runs svclab in-process and returns stdout, stderr and the exit
// code.
func svclabRun(args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// rendered is `svclab render` of an embedded scenario with extra args.
func rendered(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := svclabRun(append([]string{"render"}, args...)...)
	if code != 0 {
		t.Fatalf("render %v: exit %d: %s", args, code, errOut)
	}
	return out
}

func writeDump(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// editDump replaces old (which must occur) by new in text.
func editDump(t *testing.T, text, old, new string) string {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("the dump has no %q", old)
	}
	return strings.Replace(text, old, new, 1)
}

// Point 3: a statement the nftables tracer does not model (with its
// verdict) makes the verdict unknown, exit 3, and analyze counts it.
func TestIssue26Point3UnknownStatementIsUnknown(t *testing.T) {
	kp := rendered(t, "--mode", "nftables", "--scenario", "two-endpoints", "--services", "0")
	for _, tc := range []struct{ name, stmt string }{
		{"tcp flags", "tcp flags & (fin|syn|rst|ack) == syn drop"},
		{"meta skuid", "meta skuid 0 drop"},
		{"ip ttl", "ip ttl 64 drop"},
		{"queue", "queue"},
		{"ct mark", "ct mark 5 drop"},
		{"unmodelled match then counter and drop", "ip dscp cs0 counter drop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := "table ip hostfw {\n\tchain pre {\n\t\ttype filter hook prerouting priority -300; policy accept;\n\t\t" + tc.stmt + "\n\t}\n}\n"
			dump := writeDump(t, "d.nft", kp+fw)
			out, errOut, code := svclabRun("trace", "--dump", dump, "--dst", "172.30.0.43:80")
			if code != 3 || !strings.Contains(out, "verdict unknown") {
				t.Errorf("trace: exit %d, want 3 and verdict unknown; stdout:\n%s\nstderr: %s", code, out, errOut)
			}
			out, errOut, code = svclabRun("analyze", "--dump", dump, "--json")
			var rep struct {
				Unknown int `json:"unknown_services"`
			}
			if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Unknown != 1 {
				t.Errorf("analyze: exit %d (%v), %d unknown, want 1; stderr: %s", code, err, rep.Unknown, errOut)
			}
		})
	}
	t.Run("unknown JSON expression", func(t *testing.T) {
		js := `{"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},
{"table": {"family": "ip", "name": "f", "handle": 1}},
{"chain": {"family": "ip", "table": "f", "name": "pre", "handle": 1, "type": "filter", "hook": "prerouting", "prio": 0, "policy": "accept"}},
{"rule": {"family": "ip", "table": "f", "chain": "pre", "handle": 2, "expr": [{"xyzzy": {"plugh": 1}}, {"drop": null}]}}]}`
		out, errOut, code := svclabRun("trace", "--dump", writeDump(t, "d.json", js), "--dst", "10.96.0.1:80")
		if code != 3 || !strings.Contains(out, "verdict unknown") {
			t.Errorf("trace: exit %d, want 3 and verdict unknown; stdout:\n%s\nstderr: %s", code, out, errOut)
		}
	})
}

// Point 10: a malformed dump is bad input (exit 2) and the message names
// the file and the line.
func TestIssue26Point10MalformedDumpsExit2(t *testing.T) {
	ipt := rendered(t, "--mode", "iptables", "--scenario", "two-endpoints", "--services", "0")
	ipvs := rendered(t, "--mode", "ipvs", "--scenario", "two-endpoints", "--services", "0")
	const prob = "--probability 0.5000000000"
	lastCommit := strings.LastIndex(ipt, "COMMIT")
	for _, tc := range []struct {
		name, text, want string
	}{
		{"probability 1.5", editDump(t, ipt, prob, "--probability 1.5"), "line 27"},
		{"no COMMIT", ipt[:lastCommit], "missing COMMIT"},
		{"unknown table", editDump(t, ipt, "*filter", "*bogus"), "line 1"},
		{"every 0", editDump(t, ipt, "--mode random "+prob, "--mode nth --every 0 --packet 0"), "line 27"},
		{"port 99999", editDump(t, ipt, "--dport 80 -j KUBE-SVC", "--dport 99999 -j KUBE-SVC"), "line 25"},
		{"/33", editDump(t, ipt, "! -s 10.0.0.0/8", "! -s 10.0.0.0/33"), "line 26"},
		{"unterminated quote", editDump(t, ipt, `"ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j`, `"ns3 -j`), "line 25"},
		{"duplicate chain", editDump(t, ipt, ":KUBE-FORWARD - [0:0]\n", ":KUBE-FORWARD - [0:0]\n:KUBE-FORWARD - [0:0]\n"), "line 5"},
		{"jump loop", "*nat\n:A - [0:0]\n:B - [0:0]\n-A PREROUTING -j A\n-A A -j B\n-A B -j A\nCOMMIT\n", "line 6"},
		{"ipvsadm option without a value", editDump(t, ipvs, "-m -w 1", "-m -w 1 -x"), "ipvsadm line 2"},
		{"ipvsadm persistence not a number", editDump(t, ipvs, "-s rr", "-s rr -p bogus"), "ipvsadm line 1"},
		{"ipvsadm weight -5", editDump(t, ipvs, "-m -w 1", "-m -w -5"), "ipvsadm line 2"},
		{"ipvsadm weight 2^32", editDump(t, ipvs, "-m -w 1", "-m -w 4294967296"), "ipvsadm line 2"},
		{"ipvsadm duplicate real server", editDump(t, ipvs, "-a -t 172.30.0.43:80 -r 10.0.3.3:80 -m -w 1", "-a -t 172.30.0.43:80 -r 10.0.3.2:80 -m -w 1"), "ipvsadm line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump := writeDump(t, "dump.txt", tc.text)
			for _, cmd := range []string{"trace", "analyze"} {
				args := []string{cmd, "--dump", dump}
				if cmd == "trace" {
					args = append(args, "--dst", "172.30.0.43:80")
				}
				out, errOut, code := svclabRun(args...)
				if code != 2 || out != "" || !strings.Contains(errOut, dump+":") || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2, no stdout, an error naming %s and %q", cmd, code, clipped(out), errOut, dump, tc.want)
				}
			}
		})
	}
}

func clipped(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Point 13: a file of both families' iptables or IPVS rules (render
// without --family) is refused with a pointer to --family; an nftables one
// (tables of either family) is traced in the packet's family.
func TestIssue26Point13DualStackDumpRefused(t *testing.T) {
	const sc = "../../scenarios/dual-stack-split-ipv4.yaml"
	for _, mode := range []string{"iptables", "ipvs"} {
		t.Run(mode, func(t *testing.T) {
			dump := writeDump(t, "ds."+mode, rendered(t, "--mode", mode, "--scenario", sc))
			for _, args := range [][]string{{"trace", "--dump", dump, "--dst", "10.96.0.120:80"}, {"analyze", "--dump", dump}} {
				out, errOut, code := svclabRun(args...)
				if code != 2 || out != "" || !strings.Contains(errOut, "--family") || !strings.Contains(errOut, dump) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and a pointer to --family", args[0], code, clipped(out), errOut)
				}
			}
		})
	}
	t.Run("nftables", func(t *testing.T) {
		dump := writeDump(t, "ds.nft", rendered(t, "--mode", "nftables", "--scenario", sc))
		for _, dst := range []string{"10.96.0.120:80", "[fd00:10:96::120]:80"} {
			out, errOut, code := svclabRun("trace", "--dump", dump, "--dst", dst)
			if code != 0 || !strings.Contains(out, "service demo/dual:http") {
				t.Errorf("trace %s: exit %d, want 0 and the service; stdout:\n%s\nstderr: %s", dst, code, out, errOut)
			}
		}
	})
}

// Point 13: a destination that matches no Service says so and exits 4; a
// dump without Services (a host firewall) is traced as before.
func TestIssue26Point13NoServiceExit4(t *testing.T) {
	for _, mode := range []string{"iptables", "nftables", "ipvs"} {
		t.Run(mode, func(t *testing.T) {
			dump := writeDump(t, "d."+mode, rendered(t, "--mode", mode, "--scenario", "two-endpoints", "--services", "0"))
			out, errOut, code := svclabRun("trace", "--dump", dump, "--dst", "172.30.0.99:80")
			if code != 4 || !strings.Contains(errOut, "no service") || !strings.Contains(out, "service -") {
				t.Errorf("trace of a typo: exit %d, stderr %q; want exit 4 and a message naming no service; stdout:\n%s", code, errOut, out)
			}
			if _, errOut, code := svclabRun("trace", "--dump", dump, "--dst", "172.30.0.43:80"); code != 0 {
				t.Errorf("trace of the service: exit %d: %s", code, errOut)
			}
		})
	}
	fw := writeDump(t, "fw.nft", "table inet f {\n\tchain in {\n\t\ttype filter hook prerouting priority 0; policy accept;\n\t\ttcp dport 22 accept\n\t}\n}\n")
	if _, errOut, code := svclabRun("trace", "--dump", fw, "--dst", "10.0.0.1:80"); code != 0 {
		t.Errorf("trace of a dump without services: exit %d: %s", code, errOut)
	}
	usage := commands["trace"].usage
	if !strings.Contains(usage, "4 ") || !strings.Contains(usage, "no service") {
		t.Errorf("svclab help trace does not document exit code 4:\n%s", usage)
	}
}

// Point 14: trace quotes a rule's long comment clipped, not whole.
func TestIssue26Point14TraceClipsLongComment(t *testing.T) {
	ipt := rendered(t, "--mode", "iptables", "--scenario", "two-endpoints", "--services", "0")
	long := strings.Repeat("x", 10<<20)
	dump := writeDump(t, "long.txt", editDump(t, ipt, `--comment "ns3/svc3:p80 -> 10.0.3.2:80"`, `--comment "`+long+`"`))
	for _, extra := range [][]string{nil, {"--json"}} {
		out, errOut, code := svclabRun(append([]string{"trace", "--dump", dump, "--dst", "172.30.0.43:80"}, extra...)...)
		if code != 0 || len(out) > 64<<10 || len(errOut) > 4<<10 {
			t.Errorf("trace %v: exit %d, %d bytes on stdout, %d on stderr; want exit 0 and at most 64 KiB", extra, code, len(out), len(errOut))
		}
	}
}

// Point 14: legacy dumps deeper than 16 jumps trace (the kernel has no
// such limit).
func TestIssue26Point14DeepJumpsTrace(t *testing.T) {
	var b strings.Builder
	b.WriteString("*nat\n")
	const depth = 40
	for i := range depth {
		b.WriteString(":C" + strconv.Itoa(i) + " - [0:0]\n")
	}
	b.WriteString("-A PREROUTING -j C0\n")
	for i := range depth - 1 {
		b.WriteString("-A C" + strconv.Itoa(i) + " -j C" + strconv.Itoa(i+1) + "\n")
	}
	b.WriteString("-A C" + strconv.Itoa(depth-1) + " -p tcp -d 10.96.0.1 --dport 80 -j DNAT --to-destination 10.244.1.2:8080\nCOMMIT\n*filter\nCOMMIT\n")
	out, errOut, code := svclabRun("trace", "--dump", writeDump(t, "deep.txt", b.String()), "--dst", "10.96.0.1:80")
	if code != 0 || !strings.Contains(out, "10.244.1.2:8080") {
		t.Errorf("trace: exit %d, want 0 and the DNAT target; stdout:\n%s\nstderr: %s", code, clipped(out), errOut)
	}
}

// Point 13: exit 4 is never a false alarm: every destination analyze
// lists (ClusterIPs, external and LoadBalancer IPs, services without
// endpoints) names its service when traced, in every mode.
func TestIssue26Point13EveryServiceIsNamed(t *testing.T) {
	for _, sc := range []string{"two-endpoints", "nodeport-external", "lb-source-ranges-allowed", "etp-local-vs-cluster", "terminating-fallback", "kube-proxy-135639"} {
		for _, mode := range []string{"iptables", "nftables", "ipvs"} {
			for _, family := range []string{"ipv4", "ipv6"} {
				out, _, code := svclabRun("render", "--mode", mode, "--scenario", sc, "--services", "0", "--family", family)
				if code != 0 {
					continue // the scenario has no services of this family
				}
				dump := writeDump(t, sc+"."+mode, out)
				js, errOut, code := svclabRun("analyze", "--dump", dump, "--json")
				var rep struct {
					Services []struct{ Destination, Protocol string }
				}
				if err := json.Unmarshal([]byte(js), &rep); code != 0 || err != nil {
					t.Fatalf("%s %s %s: analyze exit %d (%v): %s", sc, mode, family, code, err, errOut)
				}
				for _, s := range rep.Services {
					out, errOut, code := svclabRun("trace", "--dump", dump, "--dst", s.Destination, "--proto", s.Protocol)
					if code == 4 || code == 1 || code == 2 {
						t.Errorf("%s %s %s: trace %s/%s: exit %d: %s\n%s", sc, mode, family, s.Destination, s.Protocol, code, errOut, clipped(out))
					}
				}
			}
		}
	}
}

// Point 13: iptables-save and ip6tables-save concatenated by hand (no
// svclab header) are refused at the first address of the other family.
func TestIssue26Point13ConcatenatedSavesRefused(t *testing.T) {
	v4 := rendered(t, "--mode", "iptables", "--scenario", "../../scenarios/dual-stack-split-ipv4.yaml", "--family", "ipv4")
	v6 := rendered(t, "--mode", "iptables", "--scenario", "../../scenarios/dual-stack-split-ipv4.yaml", "--family", "ipv6")
	dump := writeDump(t, "both.txt", v4+v6)
	for _, args := range [][]string{{"trace", "--dump", dump, "--dst", "10.96.0.120:80"}, {"analyze", "--dump", dump}} {
		out, errOut, code := svclabRun(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "IPv6 address in a dump of IPv4 rules") || !strings.Contains(errOut, "--family") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming the families and --family", args[0], code, clipped(out), errOut)
		}
	}
}
