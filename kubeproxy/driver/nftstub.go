package driver

import (
	"fmt"
	"os"
	"path/filepath"
)

// nftStub answers knftables.New's probes (`nft --version`, then
// `nft --check -f -` of an "add table") without touching the kernel.
const nftStub = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "nftables v1.0.6 (Lester Gooch #5)"; exit 0; fi
cat >/dev/null
exit 0
`

// withoutNFT runs fn (nftables.NewProxier in render mode) with a stub nft
// first in PATH and the kernel-version check off, so that knftables.New's
// probes need neither the nft binary nor CAP_NET_ADMIN. The knftables
// interface it returns is replaced by knftables' Fake right after, in
// rewire; PATH and the environment are restored before withoutNFT returns.
func withoutNFT(fn func() error) error {
	dir, err := os.MkdirTemp("", "svclab-nft-stub-")
	if err != nil {
		return fmt.Errorf("nft stub: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "nft"), []byte(nftStub), 0o755); err != nil {
		return fmt.Errorf("nft stub: %w", err)
	}
	restore := setenv(map[string]string{
		"PATH": dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK": "1",
	})
	defer restore()
	return fn()
}

// setenv sets variables and returns the function that puts them back.
func setenv(vars map[string]string) func() {
	type old struct {
		v  string
		ok bool
	}
	saved := map[string]old{}
	for k, v := range vars {
		ov, ok := os.LookupEnv(k)
		saved[k] = old{ov, ok}
		_ = os.Setenv(k, v)
	}
	return func() {
		for k, o := range saved {
			if o.ok {
				_ = os.Setenv(k, o.v)
			} else {
				_ = os.Unsetenv(k)
			}
		}
	}
}
