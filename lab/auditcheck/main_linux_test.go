package auditcheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/lab/kubeproxy"
)

// TestMain points the kube-proxy drivers at the repository's bin/ (where
// `make kube-proxy` puts them, as `make test` does before the tests) unless
// $SVCLAB_KUBE_PROXY_DRIVERS names another directory.
func TestMain(m *testing.M) {
	if os.Getenv(kubeproxy.DirEnv) == "" {
		if dir, err := filepath.Abs(filepath.Join("..", "..", "bin")); err == nil {
			os.Setenv(kubeproxy.DirEnv, dir)
		}
	}
	os.Exit(m.Run())
}
