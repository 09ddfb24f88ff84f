package host

import (
	"errors"
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// Requirements is what a lab run needs from the host.
type Requirements struct {
	// Root asks for euid 0 (CAP_NET_ADMIN and CAP_SYS_ADMIN).
	Root bool
	// Binaries are the programs svclab will exec, looked up on PATH.
	Binaries []string
	// Netns asks that network namespaces can be created.
	Netns bool
}

// Problem is one thing the host lacks and how to fix it.
type Problem struct {
	// What is missing, e.g. "iptables-nft-restore not found".
	What string
	// Fix is what to run or do about it.
	Fix string
}

// String is the problem and its fix on one line.
func (p Problem) String() string { return p.What + ": " + p.Fix }

// host is what Check asks the system; tests replace it.
type hostEnv struct {
	lookPath   func(file string) (string, error)
	geteuid    func() int
	probeNetns func() error
}

// Check reports every requirement the host does not meet, in the order
// root, binaries, namespaces; nil means all are met.
func Check(req Requirements) []Problem {
	return checkRequirements(req, realHost)
}

func checkRequirements(req Requirements, h hostEnv) []Problem {
	var problems []Problem
	isRoot := h.geteuid() == 0
	if req.Root && !isRoot {
		problems = append(problems, Problem{
			What: needsRoot,
			Fix:  "run it with sudo",
		})
	}
	for _, bin := range req.Binaries {
		if _, err := h.lookPath(bin); err != nil {
			problems = append(problems, Problem{What: bin + " not found", Fix: FixFor(bin)})
		}
	}
	if req.Netns && (isRoot || !req.Root) { // without root the netns probe only repeats the root problem
		if err := h.probeNetns(); err != nil {
			problems = append(problems, Problem{
				What: "cannot create a network namespace: " + err.Error(),
				Fix:  "run as root on a kernel with CONFIG_NET_NS; in a container, give it CAP_SYS_ADMIN (e.g. --privileged)",
			})
		}
	}
	return problems
}

// Error turns problems into one multi-line error naming each problem and its
// fix, ending with a single install command for every missing package; nil
// when there are none.
func Error(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("this host cannot run svclab's lab:")
	for _, p := range problems {
		fmt.Fprintf(&b, "\n  - %s", p)
	}
	if pkgs := packagesToInstall(problems); len(pkgs) > 1 {
		fmt.Fprintf(&b, "\nto install everything missing at once: apt-get install -y %s (or run `make setup`)", strings.Join(pkgs, " "))
	}
	notRoot := false
	for _, p := range problems {
		notRoot = notRoot || p.What == needsRoot
	}
	return &PreflightError{msg: b.String(), notRoot: notRoot}
}

// needsRoot is the problem of a lab started without root.
const needsRoot = "svclab's lab needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN)"

// ErrNotRoot is matched (errors.Is) by a PreflightError that names the
// missing root: a usage error, not a failed measurement.
var ErrNotRoot = errors.New(needsRoot)

// PreflightError is what Error returns: every problem, one a line.
type PreflightError struct {
	msg     string
	notRoot bool
}

func (e *PreflightError) Error() string { return e.msg }

// Is reports ErrNotRoot when root was one of the problems.
func (e *PreflightError) Is(target error) bool { return target == ErrNotRoot && e.notRoot }

// ToolsFor lists the programs a lab run with the named dataplanes execs:
// ip and conntrack for every lab, and each dataplane's tools (sim/dataplane).
func ToolsFor(dataplanes []string) []string {
	return append([]string{"ip", "conntrack"}, dataplane.ToolsFor(dataplanes)...)
}
