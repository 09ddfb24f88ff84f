package uml

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// ModuleRoot is where Debian's user-mode-linux package installs the guest
// kernel's modules, one directory per kernel release.
const ModuleRoot = "/usr/lib/uml/modules"

// ErrNotInstalled means no user-mode-linux kernel is installed.
var ErrNotInstalled = errors.New("user-mode-linux is not installed")

// ErrTimeout: the guest outlived its Spec.Timeout and was killed.
var ErrTimeout = errors.New("its timeout")

// IPVSSchedulers are the IPVS schedulers svclab programs (kube-proxy's
// --ipvs-scheduler values it supports).
var IPVSSchedulers = []string{"rr", "wrr", "lc", "sh", "mh"}

// Info describes the installed user-mode-linux kernel.
type Info struct {
	// Binary is the UML kernel executable, e.g. /usr/bin/linux.
	Binary string `json:"binary"`
	// Version is the guest kernel release, e.g. "6.1.176".
	Version string `json:"version"`
	// ModuleDir holds the guest kernel's modules.
	ModuleDir string `json:"module_dir"`
	// IPVSModules are the ip_vs* modules present (built in or loadable).
	IPVSModules []string `json:"ipvs_modules"`
	// Schedulers are the IPVSSchedulers whose ip_vs_<name> module is present.
	Schedulers []string `json:"schedulers"`
	// Veth, Dummy, IPSet and Conntrack say whether those drivers
	// (veth, dummy, ip_set, nf_conntrack) are present.
	Veth      bool `json:"veth"`
	Dummy     bool `json:"dummy"`
	IPSet     bool `json:"ipset"`
	Conntrack bool `json:"conntrack"`
	// IPTablesLegacy is CONFIG_IP_NF_IPTABLES: iptables-legacy works.
	IPTablesLegacy bool `json:"iptables_legacy"`
	// NFTablesIPv4 is CONFIG_NF_TABLES_IPV4: nft's "ip" family (used by
	// iptables-nft and the nftables dataplane) works.
	NFTablesIPv4 bool `json:"nftables_ipv4"`

	modules map[string]bool
}

// HasModule says whether the guest kernel has module name, built in or as
// a loadable module ("-" and "_" are the same, as for modprobe).
func (i Info) HasModule(name string) bool { return i.modules[moduleName(name)] }

// HasIPVS says whether the guest kernel can run svclab's IPVS dataplane:
// ip_vs, at least the rr scheduler, veth and dummy.
func (i Info) HasIPVS() bool {
	return slices.Contains(i.IPVSModules, "ip_vs") && slices.Contains(i.Schedulers, "rr") && i.Veth && i.Dummy
}

// Available finds the user-mode-linux kernel and describes it. The error
// wraps ErrNotInstalled, with the apt-get command, when there is none.
func Available() (Info, error) {
	bin, err := findBinary()
	if err != nil {
		return Info{}, err
	}
	out, err := exec.Command(bin, "--version").Output()
	version := strings.TrimSpace(string(out))
	if err != nil || version == "" || strings.ContainsAny(version, " \n") {
		return Info{}, fmt.Errorf("%s --version = %q, %v: not a user-mode-linux kernel: %w", bin, version, err, ErrNotInstalled)
	}
	info := Info{Binary: bin, Version: version, ModuleDir: filepath.Join(ModuleRoot, version)}
	if info.modules, err = readModules(info.ModuleDir); err != nil {
		return info, fmt.Errorf("user-mode-linux %s: %w (reinstall: %s)", version, err, dataplane.FixFor("linux"))
	}
	info.describeModules()
	if cfg, err := exec.Command(bin, "--showconfig").Output(); err == nil {
		info.readConfig(string(cfg))
	}
	return info, nil
}

// findBinary looks for Debian's `linux` (an alternative for linux.uml).
func findBinary() (string, error) {
	for _, name := range []string{"linux", "linux.uml"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no user-mode-linux kernel (`linux` is not on PATH); fix: %s: %w", dataplane.FixFor("linux"), ErrNotInstalled)
}

// describeModules fills the exported module facts from the module set.
func (i *Info) describeModules() {
	for name := range i.modules {
		if name == "ip_vs" || strings.HasPrefix(name, "ip_vs_") {
			i.IPVSModules = append(i.IPVSModules, name)
		}
	}
	slices.Sort(i.IPVSModules)
	for _, s := range IPVSSchedulers {
		if i.HasModule("ip_vs_" + s) {
			i.Schedulers = append(i.Schedulers, s)
		}
	}
	i.Veth, i.Dummy, i.IPSet = i.HasModule("veth"), i.HasModule("dummy"), i.HasModule("ip_set")
	i.Conntrack = i.HasModule("nf_conntrack")
}

// readConfig reads the kernel options svclab cares about from
// `linux --showconfig`.
func (i *Info) readConfig(config string) {
	set := func(opt string) bool {
		return strings.Contains(config, "\n"+opt+"=y") || strings.Contains(config, "\n"+opt+"=m")
	}
	i.IPTablesLegacy = set("CONFIG_IP_NF_IPTABLES")
	i.NFTablesIPv4 = set("CONFIG_NF_TABLES_IPV4")
}

// readModules returns the names of every module in dir's modules.dep
// (loadable) and modules.builtin (built in).
func readModules(dir string) (map[string]bool, error) {
	mods := map[string]bool{}
	for _, file := range []string{"modules.dep", "modules.builtin"} {
		if err := readModuleList(filepath.Join(dir, file), mods); err != nil {
			if file == "modules.builtin" && errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
	}
	return mods, nil
}

// readModuleList adds the module named on each line of a modules.dep or
// modules.builtin file ("kernel/net/.../ip_vs_rr.ko: deps..." or
// "kernel/.../veth.ko").
func readModuleList(path string, mods map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read module list: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		file, _, _ := strings.Cut(sc.Text(), ":")
		if base := filepath.Base(strings.TrimSpace(file)); strings.Contains(base, ".ko") {
			mods[moduleName(base[:strings.Index(base, ".ko")])] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// moduleName normalises a module name as modprobe does ("-" is "_").
func moduleName(s string) string { return strings.ReplaceAll(s, "-", "_") }
