package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/lab/session"
)

func init() {
	register(&command{name: "down", summary: "tear down a lab left running by svclab up", usage: downUsage, run: runDown})
	register(&command{name: "cleanup", summary: "remove what killed runs left behind (never a live run's)", usage: cleanupUsage, run: runCleanup})
}

const downUsage = `Usage: svclab down [RUN...]

Stops the lab RUN (e.g. svl-3f9a) started by 'svclab up', or every running
lab when RUN is omitted: its daemon (checked to be the same process, by PID
and start time) removes its namespaces, and whatever is left is removed.

Examples:
  sudo svclab down svl-3f9a
  sudo svclab down
`

const cleanupUsage = `Usage: svclab cleanup [--prefix RUN] [--force]

Removes what runs that died (kill -9, a crash, a reboot) left behind. Every
run and 'svclab up' lab holds a lease, /run/svclab/RUN.lease, locked while
its process lives; cleanup removes only the objects recorded by leases whose
owner is gone: their namespaces, processes (a user-mode-linux guest; only if
still the same process), cgroups (and the processes the run started that
are still in them) and temp directories. Live runs and labs
are listed and left alone. Namespaces named like svclab's that no lease
records are listed, never removed.

Options:
  --prefix RUN   only the run RUN (e.g. svl-3f9a)
  --force        also stop live runs and labs (SIGTERM to their owner), then remove them

Examples:
  sudo svclab cleanup
  sudo svclab cleanup --prefix svl-3f9a
  sudo svclab cleanup --force          # everything svclab is running now
`

func runDown(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("down")
	addFormatFlag(fs, formatText)
	runs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		if runs, err = session.RunningLabs(); err != nil {
			return err
		}
		if len(runs) == 0 {
			fmt.Fprintln(stdout, "no lab is running")
			return nil
		}
	}
	for _, run := range runs {
		if _, err := session.Down(run); err != nil {
			if errors.Is(err, session.ErrNoSuchLab) {
				return usagef("%v", err)
			}
			return err
		}
		fmt.Fprintf(stdout, "lab %s removed\n", run)
	}
	return nil
}

func runCleanup(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cleanup")
	prefix := fs.String("prefix", "", "")
	force := fs.Bool("force", false, "")
	addFormatFlag(fs, formatText)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("cleanup takes no arguments (got %q); to clean up one run: svclab cleanup --prefix %s", strings.Join(rest, " "), rest[0])
	}
	if *prefix != "" && !session.ValidRunName(*prefix) {
		return usagef("--prefix %q: want a run name like svl-3f9a", *prefix)
	}
	rep, err := session.Cleanup(session.CleanupOptions{Prefix: *prefix, Force: *force})
	if errors.Is(err, session.ErrNeedsRoot) {
		return err
	}
	for _, r := range rep.Removed {
		fmt.Fprintf(stdout, "removed %s\n", r)
	}
	for _, l := range rep.Live {
		fmt.Fprintf(stdout, "left live %s %s (pid %d); --force stops it\n", l.Kind, l.Prefix, l.Owner.PID)
	}
	for _, n := range rep.Unowned {
		fmt.Fprintf(stdout, "not removed: netns %s (no svclab lease records it; `ip netns delete %s` if it is yours)\n", n, n)
	}
	switch {
	case err != nil:
	case len(rep.Removed) == 0 && len(rep.Live) == 0:
		fmt.Fprintln(stdout, "nothing to remove")
	case len(rep.Live) > 0:
		fmt.Fprintf(stdout, "left %d live lab(s)\n", len(rep.Live))
	}
	return err
}
