// Command svclab is a simulator and benchmark lab for Kubernetes-style
// netfilter service routing. main only parses the command line and
// dispatches; each subcommand lives in its own file.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/scenario"
	"github.com/svclab/svclab/sim/suggest"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	usage   string // full help: synopsis, options, examples
	run     func(args []string, stdout, stderr io.Writer) error
	hidden  bool
}

// commands is filled by each subcommand file's init.
var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError is bad input from the user: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

const overview = `svclab: a simulator and benchmark lab for Kubernetes-style netfilter service routing.

It programs the exact rules kube-proxy would (iptables legacy and nft, nftables,
IPVS) into network namespaces, sends real traffic through them, and measures
how evenly connections are split and what each service costs; its simulator
traces the same rules (or a real cluster's dump) in userspace.

Usage:
  svclab <command> [options]
  svclab help <command>          (or svclab <command> --help)
  svclab help scenario           the scenario file format, every field

Exit codes (every command):
  0    success
  1    the measured thing failed (a run's measurement, a gate regression)
  2    bad input or usage (the message names the file, line and field)
  3    unknown: trace met a match it cannot decide; gate is INCONCLUSIVE
  4    trace: no service matches the destination (the dump has Services)
  130  interrupted by SIGINT (Ctrl-C); 143 by SIGTERM: the lab was removed

Commands:
`

const examples = `
Examples:
  svclab render --mode iptables --services 1000 --endpoints 2 | head
  svclab run split-2                 # the 50% split, proved by the kernel's counters
  svclab run split-5 --json          # summary.json on stdout
  svclab up split-2                  # leave a lab running to explore; svclab down to remove it
  svclab cleanup                     # remove what a killed run left behind
  svclab doctor                      # what this kernel supports, what to install
  svclab run ipvs-rr                 # IPVS in a user-mode-linux guest when the host has none
`

// beforeDispatch, when set (on Linux: the user-mode-linux guest's init),
// may take over the process; it reports whether it did, and the exit code.
var beforeDispatch func(args []string) (handled bool, code int)

func main() {
	if beforeDispatch != nil {
		if handled, code := beforeDispatch(os.Args[1:]); handled {
			os.Exit(code)
		}
	}
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the command line and returns the exit code.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		printOverview(stdout)
		return 0
	}
	if args[0] == "help" {
		return help(args[1:], stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "svclab: unknown command %q%s; run `svclab --help` for the list\n", args[0], suggest.Hint(args[0], commandNames()))
		return 2
	}
	err := c.run(args[1:], stdout, stderr)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, c.usage)
		return 0
	}
	return exitCode(err, c, stderr)
}

func exitCode(err error, c *command, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	var fe *scenario.FieldError
	var ec *exitError
	say := func(format string, args ...any) { fmt.Fprintf(stderr, format, args...) }
	msg := safeMessage(err.Error())
	switch {
	case isInputError(err), readsNamedFiles[c.name] && errors.Is(err, fs.ErrNotExist):
		say("svclab %s: %s\n", c.name, msg)
		return 2
	case errors.As(err, &ec):
		if ec.msg != "" {
			say("svclab %s: %s\n", c.name, safeMessage(ec.msg))
		}
		return ec.code
	case errors.As(err, &ue):
		say("svclab %s: %s\nRun `svclab help %s` for usage.\n", c.name, msg, c.name)
		return 2
	case errors.As(err, &fe):
		say("svclab %s: %s\n", c.name, msg)
		return 2
	}
	say("svclab %s: %s\n", c.name, msg)
	return 1
}

// readsNamedFiles are the commands whose arguments name files to read: a
// file that does not exist is bad input (exit 2), not a failure.
var readsNamedFiles = map[string]bool{
	"render": true, "trace": true, "analyze": true, "report": true, "compare": true,
	"gate": true, "export": true, "plan": true, "verify-trace": true,
}

// exitError carries a specific exit code (e.g. gate's 1 for a regression).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printOverview(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "svclab help: unknown command %q%s\n", args[0], suggest.Hint(args[0], commandNames()))
		return 2
	}
	fmt.Fprint(stdout, c.usage)
	return 0
}

// commandNames lists the commands a user may type, sorted.
func commandNames() []string {
	var names []string
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append(names, "help")
}

func printOverview(w io.Writer) {
	fmt.Fprint(w, overview)
	var names []string
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, examples)
	fmt.Fprintf(w, "\nEmbedded scenarios: %s\n", strings.Join(scenario.Names(), ", "))
}
