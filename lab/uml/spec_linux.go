package uml

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GuestInitCommand is the hidden subcommand under which a binary runs
// GuestInit: the init script execs `<InitBinary> __guest-init <config>`.
const GuestInitCommand = "__guest-init"

// GuestEnv is set to "1" in the environment of the program a guest runs,
// so it can tell it is inside a user-mode-linux guest.
const GuestEnv = "SVCLAB_UML_GUEST"

// DefaultModules are preloaded when Spec.Modules is empty (those the guest
// kernel lacks are skipped): IPVS and its schedulers, the links the lab
// builds, conntrack, and the iptables and ip6tables tables, matches and
// ipset types of kube-proxy's IPVS and iptables modes. Anything else loads on demand.
var DefaultModules = []string{
	"ip_vs", "ip_vs_rr", "ip_vs_wrr", "ip_vs_lc", "ip_vs_sh", "ip_vs_mh",
	"veth", "dummy", "nf_conntrack", "nf_conntrack_netlink", "nf_nat",
	"iptable_filter", "iptable_nat", "iptable_mangle", "iptable_raw", "ipt_REJECT",
	"ipv6", "ip6table_filter", "ip6table_nat", "ip6table_mangle", "ip6table_raw", "ip6t_REJECT",
	"xt_addrtype", "xt_comment", "xt_conntrack", "xt_mark", "xt_MASQUERADE", "xt_multiport",
	"xt_nat", "xt_recent", "xt_set", "xt_state", "xt_statistic", "xt_tcpudp",
	"ip_set", "ip_set_hash_ip", "ip_set_hash_ipport", "ip_set_hash_ipportip",
	"ip_set_hash_ipportnet", "ip_set_hash_net", "ip_set_bitmap_port",
}

// Spec says what to run in a guest.
type Spec struct {
	// Binary is the program to run, as a host path (the guest sees the
	// host's filesystem). A static (CGO_ENABLED=0) binary is safest, but a
	// dynamic one finds its libraries through the same root.
	Binary string
	// Args are Binary's arguments (without argv[0]).
	Args []string
	// Env is added to the program's environment (KEY=value), after PATH
	// and GuestEnv=1.
	Env []string
	// InitBinary is the binary that runs GuestInit as the guest's init
	// (it must call GuestInit when its first argument is
	// GuestInitCommand); empty means Binary, e.g. the svclab binary.
	InitBinary string
	// Modules are preloaded with modprobe; empty means DefaultModules.
	// Naming a module the guest kernel lacks is an error.
	Modules []string
	// Mem is the guest's memory, e.g. "768M"; empty means "768M".
	Mem string
	// Timeout bounds the whole run, boot included; 0 means 5 minutes.
	Timeout time.Duration
	// WorkDir is a host directory mounted read-write at the same path in
	// the guest, where the program writes results; it is the program's
	// working directory. Empty means none (the program runs in /tmp).
	WorkDir string
	// Stdout and Stderr receive the program's output as it runs; nil
	// discards it.
	Stdout, Stderr io.Writer
	// Console receives the guest kernel's console (boot messages, panics);
	// nil discards it. Run keeps its tail for error messages either way.
	Console io.Writer
	// Started, if set, is told the guest's temp directories before the
	// guest starts (pgid 0), and its process group as soon as it runs, so
	// the caller can record them for cleanup should it die. An error stops
	// the run.
	Started func(pgid int, dirs []string) error
}

// Result is the outcome of a guest run.
type Result struct {
	// GuestKernel is the guest's kernel release (uname -r inside it).
	GuestKernel string
	// ExitCode is the program's exit status.
	ExitCode int
	// Boot is how long the guest took from starting `linux` to running
	// its init.
	Boot time.Duration
	// Setup is how long the guest's init took to mount, load modules and
	// start the program.
	Setup time.Duration
	// Duration is the whole run: boot, program and power-off.
	Duration time.Duration
}

// ExitError is Run's error when the program ran but exited non-zero.
type ExitError struct{ Code int }

// Error says the program's exit status.
func (e *ExitError) Error() string {
	return fmt.Sprintf("program in the user-mode-linux guest exited with status %d", e.Code)
}

// withDefaults fills the zero fields of s and checks its paths.
func (s Spec) withDefaults(info Info) (Spec, error) {
	if s.Mem == "" {
		s.Mem = "768M"
	}
	if s.Timeout == 0 {
		s.Timeout = 5 * time.Minute
	}
	if s.InitBinary == "" {
		s.InitBinary = s.Binary
	}
	for _, p := range []*string{&s.Binary, &s.InitBinary} {
		abs, err := executable(*p)
		if err != nil {
			return s, err
		}
		*p = abs
	}
	if s.WorkDir != "" {
		abs, err := filepath.Abs(s.WorkDir)
		if err != nil {
			return s, fmt.Errorf("guest work dir %s: %w", s.WorkDir, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return s, fmt.Errorf("guest work dir %s: not a directory (%v)", abs, err)
		}
		s.WorkDir = abs
	}
	mods, err := modulesToLoad(s.Modules, info)
	s.Modules = mods
	return s, err
}

// executable resolves path to an absolute path of an executable file.
func executable(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("guest spec: no binary to run")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("guest binary %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("guest binary: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("guest binary %s: not an executable file", abs)
	}
	return abs, nil
}

// modulesToLoad returns the modules to preload: the requested ones, all of
// which must exist, or the DefaultModules the kernel has.
func modulesToLoad(requested []string, info Info) ([]string, error) {
	if len(requested) == 0 {
		var mods []string
		for _, m := range DefaultModules {
			if info.HasModule(m) {
				mods = append(mods, m)
			}
		}
		return mods, nil
	}
	var missing []string
	for _, m := range requested {
		if !info.HasModule(m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("user-mode-linux %s has no module %s (looked in %s)", info.Version, strings.Join(missing, ", "), info.ModuleDir)
	}
	return requested, nil
}
