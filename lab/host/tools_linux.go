package host

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// toolVersionArg is a program and the arguments that print its version.
type toolVersionArg struct {
	name string
	args []string
}

// toolVersionArgs are the programs svclab execs and how each prints its
// version. Version queries touch no kernel state.
var toolVersionArgs = []toolVersionArg{
	{"ip", []string{"-V"}},
	{"iptables-legacy-restore", []string{"--version"}},
	{"iptables-nft-restore", []string{"--version"}},
	{"nft", []string{"--version"}},
	{"ipset", []string{"version"}},
	{"ipvsadm", []string{"--version"}},
	{"conntrack", []string{"--version"}},
	{"modprobe", []string{"--version"}},
	{"linux", []string{"--version"}},
}

// runner runs a command and returns its output; tests replace it.
type runner func(name string, args ...string) (string, error)

// runCommand runs a version query with a time limit.
func runCommand(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

// findTools looks up every tool and its version. A tool whose version
// query fails (ipvsadm does on a kernel without IPVS) gets its Debian
// package's version instead.
func findTools(lookPath func(string) (string, error), run runner) []Tool {
	tools := make([]Tool, 0, len(toolVersionArgs))
	for _, tv := range toolVersionArgs {
		t := Tool{Name: tv.name, Package: PackageFor(tv.name), Status: Missing}
		if path, err := lookPath(tv.name); err == nil {
			t.Status, t.Path = OK, path
			t.Version = toolVersion(run, tv.name, tv.args, t.Package)
		}
		tools = append(tools, t)
	}
	return tools
}

func toolVersion(run runner, name string, args []string, pkg string) string {
	if out, err := run(name, args...); err == nil && strings.TrimSpace(out) != "" {
		return strings.TrimSpace(strings.SplitN(strings.TrimSpace(out), "\n", 2)[0])
	}
	if pkg == "" {
		return "unknown"
	}
	if out, err := run("dpkg-query", "-W", "-f=${Version}", pkg); err == nil && out != "" {
		return "package " + pkg + " " + strings.TrimSpace(out)
	}
	return "unknown"
}
