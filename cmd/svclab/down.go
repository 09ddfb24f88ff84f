package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/topo"
)

func init() {
	register(&command{name: "down", summary: "tear down a lab left running by svclab up", usage: downUsage, run: runDown})
	register(&command{name: "cleanup", summary: "remove every svclab namespace a killed run left behind", usage: cleanupUsage, run: runCleanup})
}

const downUsage = `Usage: svclab down [RUN]

Stops the lab RUN (e.g. svl-3f9a) started by 'svclab up', or every running
lab when RUN is omitted, and removes its namespaces.

Examples:
  sudo svclab down svl-3f9a
  sudo svclab down
`

const cleanupUsage = `Usage: svclab cleanup [--prefix P]

Removes every network namespace whose name starts with the prefix (default
"svl-": everything svclab made; a run's prefix such as svl-3f9a removes that
run's namespaces, a sweep's per-point labs included) and stops labs left by
'svclab up'. Use it after a run was killed with kill -9. It touches nothing
without svclab's "svl-" prefix.

Examples:
  sudo svclab cleanup
  sudo svclab cleanup --prefix svl-3f9a
`

func runDown(args []string, stdout, stderr io.Writer) error {
	rest, err := parseFlags(newFlagSet("down"), args)
	if err != nil {
		return err
	}
	runs := rest
	if len(runs) == 0 {
		if runs, err = runner.RunningLabs(); err != nil {
			return err
		}
		if len(runs) == 0 {
			fmt.Fprintln(stdout, "no lab is running")
			return nil
		}
	}
	for _, run := range runs {
		if err := stopLab(run); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "lab %s removed\n", run)
	}
	return nil
}

// stopLab signals the lab's daemon, waits for it, and removes whatever is
// left.
func stopLab(run string) error {
	st, err := runner.LoadState(run)
	if err != nil {
		return err
	}
	if p, err := os.FindProcess(st.PID); err == nil && p.Signal(syscall.SIGTERM) == nil {
		for i := 0; i < 100 && p.Signal(syscall.Signal(0)) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if _, err := topo.Cleanup(run); err != nil {
		return fmt.Errorf("remove lab %s: %w", run, err)
	}
	_ = os.Remove(filepath.Join(runner.StateDir, run+".log"))
	return runner.RemoveState(run)
}

func runCleanup(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cleanup")
	prefix := fs.String("prefix", topo.PrefixBase, "")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	runs, _ := runner.RunningLabs()
	for _, run := range runs {
		if len(run) >= len(*prefix) && run[:len(*prefix)] == *prefix {
			_ = stopLab(run)
		}
	}
	removed, err := removeNamespaces(*prefix)
	for _, r := range removed {
		fmt.Fprintf(stdout, "removed %s\n", r)
	}
	if len(removed) == 0 {
		fmt.Fprintln(stdout, "nothing to remove")
	}
	return err
}

// removeNamespaces deletes every namespace whose name starts with prefix: a
// run's own (svl-3f9a-node) and, for a sweep, those of its per-point labs
// (svl-3f9a0-node, svl-3f9a1-node, ...). It refuses prefixes svclab did not
// make.
func removeNamespaces(prefix string) ([]string, error) {
	if !strings.HasPrefix(prefix, topo.PrefixBase) {
		return nil, usagef("--prefix %q: svclab only removes names starting with %q", prefix, topo.PrefixBase)
	}
	names, err := netns.List(prefix)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, name := range names {
		gone, err := topo.Cleanup(name)
		removed = append(removed, gone...)
		errs = append(errs, err)
	}
	return removed, errors.Join(errs...)
}
