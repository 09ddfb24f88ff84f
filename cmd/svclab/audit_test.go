package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// auditTestCluster is sim/audit's test cluster.
const auditTestCluster = "../../sim/audit/audittest/testdata/cluster.yaml"

// renderNode writes the rules native kube-proxy writes for the test
// cluster in mode (with the iptables jump rules), as a node's dump.
func renderNode(t *testing.T, mode string, edit func(string) string) string {
	t.Helper()
	args := []string{"render", "--mode", mode, "--scenario", auditTestCluster}
	if mode == "iptables" {
		args = append(args, "--jumps")
	}
	out, stderr, code := runCommand(t, args...)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	if edit != nil {
		out = edit(out)
	}
	path := filepath.Join(t.TempDir(), mode+".rules")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func dropLine(holding string) func(string) string {
	return func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, holding) {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
}

func TestAuditCommand(t *testing.T) {
	clean := renderNode(t, "nftables", nil)
	tampered := renderNode(t, "iptables", dropLine("ns7/web:http -> 10.180.0.72:8080"))
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string // in stdout, or in stderr when wantCode is 2
	}{
		{"clean", []string{"--dump", clean}, 0, "clean (7 Services"},
		{"tampered", []string{"--dump", tampered}, 1, "endpoint 10.180.0.72:8080 gone"},
		{"markdown", []string{"--dump", tampered, "--format", "markdown"}, 1, "## Service ns7/web"},
		{"no objects", []string{"--dump", clean, "--objects", ""}, 2, "--objects FILE is required"},
		{"no dump", []string{}, 2, "--dump FILE, or --live"},
		{"missing dump", []string{"--dump", "no-such-file"}, 2, "no-such-file"},
		{"wrong mode", []string{"--dump", clean, "--mode", "iptables"}, 2, "the dump holds nftables rules"},
		{"unknown node", []string{"--dump", clean, "--node", "nope"}, 2, `node "nope"`},
		{"bad format", []string{"--dump", clean, "--format", "xml"}, 2, `"xml" for flag -format: want text, markdown or json`},
		{"live without mode", []string{"--live"}, 2, "--live needs --mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"audit", "--objects", auditTestCluster, "--engine", "native"}, tc.args...)
			stdout, stderr, code := runCommand(t, args...)
			got := stdout
			if tc.wantCode == 2 {
				got = stderr
			}
			if code != tc.wantCode || !strings.Contains(got, tc.want) {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, tc.want, stdout, stderr)
			}
		})
	}
}

func TestAuditJSON(t *testing.T) {
	tampered := renderNode(t, "nftables", dropLine("10.180.0.72 . 8080"))
	stdout, stderr, code := runCommand(t, "audit", "--objects", auditTestCluster, "--engine", "native", "--dump", tampered, "--json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Services []struct {
			Service  string
			Findings []struct{ Kind string }
			Effects  []struct{ Changes []string }
		}
		Summary struct{ Missing, PathsChanged int }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if len(rep.Services) != 1 || rep.Services[0].Service != "ns7/web" || len(rep.Services[0].Effects) == 0 {
		t.Fatalf("want one Service, ns7/web, with its traffic effects: %s", stdout)
	}
}
