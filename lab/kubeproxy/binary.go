package kubeproxy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/render"
)

// BuildCommand is the command that builds the drivers.
const BuildCommand = "make kube-proxy"

// DirEnv names the directory to take driver binaries from; without it,
// they are taken from the directory of the svclab binary.
const DirEnv = "SVCLAB_KUBE_PROXY_DRIVERS"

// ErrNotBuilt is returned (wrapped) when no driver binary for a version is
// found; its message names BuildCommand.
var ErrNotBuilt = errors.New("kube-proxy driver not built (run `" + BuildCommand + "`)")

// BinaryName is the driver binary's file name for version, e.g.
// "kube-proxy-driver-1.37".
func BinaryName(v render.KubeProxyVersion) string {
	return "kube-proxy-driver-" + string(v.OrLatest())
}

// Find returns the path of the driver for version ("" is the newest),
// looking in $SVCLAB_KUBE_PROXY_DRIVERS if set, else next to the running
// executable (bin/ beside bin/svclab, as `make build` and `make
// kube-proxy` place them). It never looks in the working directory or in
// PATH: svclab runs as root and executes what it finds, so it takes the
// driver only from where the user put it on purpose.
func Find(version string) (string, error) {
	v, err := render.ParseKubeProxyVersion(version)
	if err != nil {
		return "", err
	}
	name := BinaryName(v)
	dirs := driverDirs()
	for _, d := range dirs {
		if p := filepath.Join(d, name); isExecutableFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("kube-proxy %s: %s not found in %v (set %s to the directory that holds it): %w", v.OrLatest(), name, dirs, DirEnv, ErrNotBuilt)
}

// driverDirs are the directories Find looks in: $SVCLAB_KUBE_PROXY_DRIVERS
// alone if set, else the directory of the svclab binary (symlinks
// resolved: a /usr/local/bin/svclab link to a build tree finds that
// tree's bin/).
func driverDirs() []string {
	if d := os.Getenv(DirEnv); d != "" {
		return []string{d}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return []string{filepath.Dir(exe)}
}

// isExecutableFile reports whether p is a regular file someone may execute.
func isExecutableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
