package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/lab/kubeproxy"
)

// TestRenderKubeProxyEngineMatchesNativeOnOverallTests: for the scenarios
// of kube-proxy's TestOverallNFTablesRules, `svclab render --engine
// kube-proxy` (kube-proxy's own proxier, through the driver `make
// kube-proxy` builds) leaves the same nftables state as the native engine.
// Without feature gates: the driver does not set them. (The iptables
// scenario is left out: the driver's host has no nfacct counters.)
func TestRenderKubeProxyEngineMatchesNativeOnOverallTests(t *testing.T) {
	if os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS") == "" {
		if dir, err := filepath.Abs(filepath.Join("..", "..", "bin")); err == nil {
			t.Setenv("SVCLAB_KUBE_PROXY_DRIVERS", dir)
		}
	}
	for _, tt := range []struct{ scenario, version string }{
		{"nftables-ipv4.yaml", "1.37"},
		{"nftables-ipv6.yaml", "1.37"},
		{"nftables-ipv4.yaml", "1.35"},
	} {
		t.Run(tt.scenario+" v"+tt.version, func(t *testing.T) {
			args := []string{"--scenario", "testdata/overall/" + tt.scenario, "--mode", "nftables", "--kube-proxy-version", tt.version}
			var native, kp, errOut bytes.Buffer
			if err := runRender(args, &native, &errOut); err != nil {
				t.Fatalf("render %v: %v\n%s", args, err, errOut.String())
			}
			err := runRender(append(args, "--engine", "kube-proxy"), &kp, &errOut)
			if errors.Is(err, kubeproxy.ErrNotBuilt) {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true and the kube-proxy driver is not built: %v", err)
				}
				t.Skipf("the kube-proxy driver is not built (make kube-proxy): %v", err)
			}
			if err != nil {
				t.Fatalf("render %v --engine kube-proxy: %v\n%s", args, err, errOut.String())
			}
			sameCanonical(t, nftState, nftState, kp.String(), native.String())
		})
	}
}
