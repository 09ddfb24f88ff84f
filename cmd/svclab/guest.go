package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// guestTimeout bounds a whole run inside the user-mode-linux guest.
const guestTimeout = 40 * time.Minute

// needsGuest decides where a run happens: --kernel uml always in the guest,
// host never, auto in the guest only when a dataplane is ipvs and the host
// kernel has no IPVS.
func needsGuest(sc *scenario.Scenario, kernel string) (bool, error) {
	switch kernel {
	case "host":
		return false, nil
	case "uml":
		return true, nil
	case "auto", "":
	default:
		return false, usagef("--kernel %q: want auto, host or uml", kernel)
	}
	if os.Getenv(uml.GuestEnv) == "1" || !usesDataplane(sc, "ipvs") {
		return false, nil
	}
	_, err := os.Stat("/proc/net/ip_vs")
	return err != nil, nil
}

func usesDataplane(sc *scenario.Scenario, name string) bool {
	return contains(sc.Dataplanes(), name)
}

// runInGuest boots Debian's user-mode-linux kernel with the host's files as
// a read-only root, runs this same binary inside with --kernel host, and
// streams its output; the run directory is shared read-write, and meta.json
// records both kernels afterwards.
func runInGuest(scenarioArg string, f runFlags, stdout, stderr io.Writer) error {
	if _, err := uml.Available(); err != nil {
		return fmt.Errorf("this run needs a kernel with IPVS: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(defaultRunDir(f.out, scenarioArg))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create run directory %s: %w", dir, err)
	}
	if st, err := os.Stat(scenarioArg); err == nil && !st.IsDir() {
		scenarioArg, _ = filepath.Abs(scenarioArg)
	}
	args := append([]string{"run", scenarioArg, "--out", dir, "--kernel", "host"}, f.passthrough()...)
	fmt.Fprintf(stderr, "svclab: the host kernel has no IPVS: running in a user-mode-linux guest (timings are the guest's, not the host's)\n")
	ctx, stop := interruptContext(stderr)
	defer stop()
	res, err := uml.Run(ctx, uml.Spec{Binary: self, Args: args, WorkDir: dir, Stdout: stdout, Stderr: stderr, Mem: "1536M", Timeout: guestTimeout})
	if res.GuestKernel != "" {
		recordGuestKernel(dir, res.GuestKernel)
	}
	if err != nil {
		return fmt.Errorf("guest run: %w (results so far are in %s)", err, dir)
	}
	fmt.Fprintf(stderr, "guest kernel %s: boot %v, whole run %v\n", res.GuestKernel, res.Boot.Round(time.Millisecond), res.Duration.Round(time.Second))
	return nil
}

// recordGuestKernel rewrites meta.json with the host's kernel as Kernel and
// the guest's as GuestKernel.
func recordGuestKernel(dir, guest string) {
	m, err := results.ReadMeta(dir)
	if err != nil {
		return
	}
	m.GuestKernel = guest
	m.Kernel = runner.KernelRelease()
	_ = results.WriteJSON(dir, results.MetaFile, m)
}

func defaultRunDir(out, scenarioArg string) string {
	if out != "" {
		return out
	}
	name := filepath.Base(scenarioArg)
	name = name[:len(name)-len(filepath.Ext(name))]
	return filepath.Join("results", "runs", name+"-"+time.Now().Format("20060102-150405"))
}
