package kubeproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/kube"
)

// Process is one driver running in sync mode inside a network namespace:
// kube-proxy's own proxier programming that namespace's kernel through the
// real iptables, nft and ipset tools.
type Process struct {
	*proc
	enc *json.Encoder
	out *bufio.Scanner
}

// proc is a driver process in a namespace, in any of its modes.
type proc struct {
	ns, bin, sub string
	// dir is the iptables variant's symlink directory ("" for none),
	// removed when the driver ends.
	dir    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr bytes.Buffer
}

// spawn starts bin's subcommand sub inside namespace ns, with kube-proxy's
// iptables commands bound to variant ("legacy", "nft", or "" for the
// system's). The driver gets SIGKILL when the thread that started it
// (hence svclab) dies, however svclab dies. It leads its own process
// group, so that killing it (ctx ending, Loop.Kill) kills the tools it is
// running too, as killing kube-proxy's container does: an
// iptables-nft-restore of 10,000 Services outlived its killed driver by
// minutes.
func spawn(ctx context.Context, ns, bin, variant, sub string) (*proc, error) {
	p := &proc{ns: ns, bin: bin, sub: sub, cmd: exec.CommandContext(ctx, bin, sub)}
	if variant != "" {
		dir, err := iptablesDir(ns, variant)
		if err != nil {
			return nil, p.wrap(err)
		}
		p.dir, p.cmd.Env = dir, pathEnv(dir)
	}
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	p.cmd.Cancel = p.killGroup
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, p.removeDir(p.wrap(err))
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		return nil, p.removeDir(p.wrap(err))
	}
	if err := netns.Start(ns, p.cmd); err != nil {
		return nil, p.removeDir(p.wrap(err))
	}
	return p, nil
}

// Start starts the driver bin in sync mode inside namespace ns, with
// kube-proxy's iptables commands bound to variant ("legacy", "nft", or ""
// for the system's), hands it req and returns after req's first sync and
// its steps, with their reports.
func Start(ctx context.Context, ns, bin, variant string, req *kube.Request) (*Process, []kube.Sync, error) {
	pr, err := spawn(ctx, ns, bin, variant, "sync")
	if err != nil {
		return nil, nil, err
	}
	p := &Process{proc: pr}
	p.out = bufio.NewScanner(p.stdout)
	p.out.Buffer(nil, 1<<30)
	p.enc = json.NewEncoder(p.stdin)
	if err := p.enc.Encode(req); err != nil {
		return nil, nil, p.fail(err)
	}
	var syncs []kube.Sync
	for range 1 + len(req.Steps) {
		s, err := p.read()
		if err != nil {
			return nil, nil, err
		}
		syncs = append(syncs, s)
	}
	return p, syncs, nil
}

// Step sends one step and returns the report of the sync it causes.
func (p *Process) Step(st kube.Step) (kube.Sync, error) {
	if err := p.enc.Encode(st); err != nil {
		return kube.Sync{}, p.fail(err)
	}
	return p.read()
}

func (p *Process) read() (kube.Sync, error) {
	if !p.out.Scan() {
		err := p.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return kube.Sync{}, p.fail(err)
	}
	var s kube.Sync
	if err := json.Unmarshal(p.out.Bytes(), &s); err != nil {
		return kube.Sync{}, p.wrap(fmt.Errorf("sync report: %w", err))
	}
	return s, nil
}

// Close ends the driver: it closes its input and waits for it to exit.
// What kube-proxy programmed stays in the namespace.
func (p *Process) Close() error {
	_ = p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		return p.removeDir(p.wrap(err))
	}
	return p.removeDir(nil)
}

// fail stops a driver that broke off and returns err with its stderr.
// killGroup sends SIGKILL to the driver's process group: the driver and
// the iptables, nft or conntrack it runs.
func (p *proc) killGroup() error {
	if p.cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return p.cmd.Process.Kill()
	}
	return nil
}

func (p *proc) fail(err error) error {
	_ = p.stdin.Close()
	_ = p.cmd.Wait()
	return p.removeDir(p.wrap(err))
}

// removeDir removes the iptables variant's directory once the driver is
// gone (or never started), and adds a failure to err.
func (p *proc) removeDir(err error) error {
	if p.dir == "" {
		return err
	}
	dir := p.dir
	p.dir = ""
	if rmErr := os.RemoveAll(dir); rmErr != nil {
		return errors.Join(err, fmt.Errorf("kube-proxy driver in netns %s: %w", p.ns, rmErr))
	}
	return err
}

func (p *proc) wrap(err error) error {
	return fmt.Errorf("%s %s in netns %s: %w: %s", p.bin, p.sub, p.ns, err, strings.TrimSpace(p.stderr.String()))
}
