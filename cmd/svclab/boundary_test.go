package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What sim/ must never depend on. A sim package (or any svclab package it
// uses) must not itself import what execs or makes raw syscalls; and
// nothing in its whole dependency tree may be the lab or a netlink,
// nftables, iptables, IPVS or BPF client.
var (
	forbiddenDirect = []string{"os/exec", "syscall", "golang.org/x/sys/unix"}
	forbiddenAnyDep = []string{
		"github.com/svclab/svclab/lab",
		"github.com/vishvananda/netlink", "github.com/vishvananda/netns",
		"github.com/mdlayher/netlink", "github.com/google/nftables", "sigs.k8s.io/knftables",
		"github.com/coreos/go-iptables", "github.com/cloudflare/ipvs", "github.com/cilium/ebpf",
	}
)

func hasPathPrefix(dep string, list []string) (string, bool) {
	for _, bad := range list {
		if dep == bad || strings.HasPrefix(dep, bad+"/") {
			return bad, true
		}
	}
	return "", false
}

// TestPrivilegeBoundary lists every sim package and its dependencies (go
// list -deps, for Linux, where the lab's imports would be) and fails on a
// forbidden import.
func TestPrivilegeBoundary(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "github.com/svclab/svclab/sim/...")
	cmd.Env = append(os.Environ(), "GOOS=linux")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "github.com/svclab/svclab/") {
			continue
		}
		pkg := parts[0]
		checked++
		for _, imp := range strings.Fields(parts[1]) {
			if bad, ok := hasPathPrefix(imp, forbiddenDirect); ok {
				t.Errorf("%s imports %s: sim must not exec or make syscalls", pkg, bad)
			}
		}
		for _, dep := range append([]string{pkg}, strings.Fields(parts[2])...) {
			if bad, ok := hasPathPrefix(dep, forbiddenAnyDep); ok {
				t.Errorf("%s depends on %s: sim must not reach the lab or a kernel client", pkg, bad)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d sim packages; the listing is wrong", checked)
	}
}

// cliLab are the lab packages the command may import, each for its
// commands: runs (runner, and guest for where a run goes and its guest
// side), the guest's init (uml), up, down and cleanup (session), doctor
// (host), verify-trace (verifytrace), migrate --verify (migrateverify), ab (abrun), and render --engine kube-proxy
// (kubeproxy, whose render mode builds on every OS). The rest of the lab is
// reached through them.
var cliLab = []string{
	"github.com/svclab/svclab/lab/abrun",
	"github.com/svclab/svclab/lab/cluster",
	"github.com/svclab/svclab/lab/guest",
	"github.com/svclab/svclab/lab/host",
	"github.com/svclab/svclab/lab/kubeproxy",
	"github.com/svclab/svclab/lab/migrateverify",
	"github.com/svclab/svclab/lab/runner",
	"github.com/svclab/svclab/lab/session",
	"github.com/svclab/svclab/lab/uml",
	"github.com/svclab/svclab/lab/verifytrace",
}

// TestCLIImportsOnlyAllowedLabPackages parses every non-test file of the
// command: the lab packages it imports must be in cliLab.
func TestCLIImportsOnlyAllowedLabPackages(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, "github.com/svclab/svclab/lab/") && !slices.Contains(cliLab, path) {
				t.Errorf("%s imports %s; the CLI may import only %v from the lab", f, path, cliLab)
			}
		}
	}
}
