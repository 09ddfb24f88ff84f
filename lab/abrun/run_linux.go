package abrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/svclab/svclab/sim/ab"
	"github.com/svclab/svclab/sim/results"
)

// Options configure Run.
type Options struct {
	// Plan is what to run; its Order is filled from Repetitions and Seed
	// when empty.
	Plan ab.Plan
	// Dir is the A/B run directory; it must not exist or be empty.
	Dir string
	// Log receives one line per repetition (optional).
	Log func(format string, args ...any)
}

// Run runs the plan's repetitions in order, then merges each side's into
// Dir/base and Dir/new and writes Dir/ab.json. A failed repetition stops
// the job: its output is in Dir/SIDE/reps/NN.log.
func Run(ctx context.Context, opts Options) error {
	p := &opts.Plan
	if len(p.Order) == 0 {
		p.Order = ab.Order(p.Repetitions, p.Seed)
	}
	if err := emptyDir(opts.Dir); err != nil {
		return err
	}
	if err := results.WriteJSON(opts.Dir, ab.PlanFile, p); err != nil {
		return err
	}
	for i, order := range p.Order {
		for _, name := range order {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("A/B run %s stopped before repetition %d of %s: %w", opts.Dir, i+1, name, err)
			}
			if opts.Log != nil {
				opts.Log("repetition %d/%d: %s", i+1, len(p.Order), name)
			}
			if err := runRepetition(ctx, opts, name, i+1); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{ab.Base, ab.New} {
		if err := ab.Merge(filepath.Join(opts.Dir, name), len(p.Order)); err != nil {
			return err
		}
	}
	return nil
}

// emptyDir creates dir, or accepts it when it exists and is empty.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("A/B run directory %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("A/B run directory %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("A/B run directory %s is not empty: give a new --out", dir)
	}
	return nil
}

// runRepetition runs one repetition of side name; its stdout and stderr go
// to the repetition's log file.
func runRepetition(ctx context.Context, opts Options, name string, rep int) error {
	side := opts.Plan.Base
	if name == ab.New {
		side = opts.Plan.New
	}
	dir := ab.RepetitionDir(filepath.Join(opts.Dir, name), rep)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	logPath := dir + ".log"
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	args := append([]string{"run", opts.Plan.Scenario, "--out", dir, "--repetitions", "1"}, side.Args...)
	cmd := repetitionCommand(ctx, side.Binary, args)
	cmd.Env = append(os.Environ(), side.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	// The child's death signal is tied to the thread that started it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s side, repetition %d: %s %v exited %d: see %s", name, rep, side.Binary, args, exit.ExitCode(), logPath)
		}
		return fmt.Errorf("%s side, repetition %d: %w", name, rep, err)
	}
	return nil
}

// childTeardown is how long a repetition's svclab run has, once asked to
// stop, to remove its lab before it is killed.
const childTeardown = 2 * time.Minute

// repetitionCommand is one side's `svclab run` of a repetition. When ctx
// ends (svclab ab got SIGINT or SIGTERM) the child gets SIGTERM, so that it
// removes its lab and records that it was interrupted, as a run does; if
// svclab ab itself is killed, the kernel kills the child too, leaving its
// lab to `svclab cleanup` as a killed run's is.
func repetitionCommand(ctx context.Context, binary string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = childTeardown
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}
