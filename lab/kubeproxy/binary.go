package kubeproxy

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/svclab/svclab/sim/render"
)

// BuildCommand is the command that builds the drivers.
const BuildCommand = "make kube-proxy"

// DirEnv names a directory to look for driver binaries in first.
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
// looking in $SVCLAB_KUBE_PROXY_DRIVERS, next to the running executable
// (bin/ beside bin/svclab), in ./bin, then in PATH.
func Find(version string) (string, error) {
	v, err := render.ParseKubeProxyVersion(version)
	if err != nil {
		return "", err
	}
	name := BinaryName(v)
	var dirs []string
	if d := os.Getenv(DirEnv); d != "" {
		dirs = append(dirs, d)
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	dirs = append(dirs, "bin")
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("kube-proxy %s: %s not found in %v or PATH: %w", v.OrLatest(), name, dirs, ErrNotBuilt)
}
