package kubeproxy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/sim/dataplane"
)

// iptablesDir makes the directory that binds kube-proxy's "iptables"
// commands to variant ("legacy" or "nft"): symlinks iptables →
// iptables-legacy, … put first in the driver's PATH. svclab makes it, not
// the driver, so that it is removed however the driver ends; it lives in
// /run/svclab and is named after the namespace (NS-iptables-VARIANT-…,
// NS being the run's svl-…-node), so `svclab cleanup` removes it with the
// run after a kill -9.
func iptablesDir(ns, variant string) (string, error) {
	if variant != "legacy" && variant != "nft" {
		return "", fmt.Errorf("iptables variant %q: want legacy or nft", variant)
	}
	var dir string
	err := lease.InDir(func() (err error) {
		dir, err = os.MkdirTemp(lease.Dir, ns+"-iptables-"+variant+"-")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("iptables variant %s: %w", variant, err)
	}
	// kube-proxy's iptables mode runs the commands named after it.
	for _, family := range []string{string(dataplane.ModeIPTables), "ip6tables"} {
		for _, suffix := range []string{"", "-save", "-restore"} {
			path, err := exec.LookPath(family + "-" + variant + suffix)
			if err == nil {
				err = os.Symlink(path, filepath.Join(dir, family+suffix))
			}
			if err != nil {
				_ = os.RemoveAll(dir)
				return "", fmt.Errorf("iptables variant %s: %w", variant, err)
			}
		}
	}
	return dir, nil
}

// pathEnv is the environment with dir first in PATH.
func pathEnv(dir string) []string {
	return append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
