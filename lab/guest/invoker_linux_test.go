package guest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/kubeproxy"
)

func TestInvokerEnv(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		drivers string // "" leaves the variable unset
		want    string // the guest's SVCLAB_KUBE_PROXY_DRIVERS entry, "" for none
	}{
		{"unset: nothing passed", "", ""},
		{"absolute: passed as is", "/opt/svclab/bin", kubeproxy.DirEnv + "=/opt/svclab/bin"},
		{"relative: made absolute, the guest runs elsewhere", "bin", kubeproxy.DirEnv + "=" + filepath.Join(cwd, "bin")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(kubeproxy.DirEnv, tt.drivers)
			env := invokerEnv()
			i := slices.IndexFunc(env, func(e string) bool { return strings.HasPrefix(e, kubeproxy.DirEnv+"=") })
			got := ""
			if i >= 0 {
				got = env[i]
			}
			if got != tt.want {
				t.Errorf("invokerEnv() = %q, want the entry %q", env, tt.want)
			}
		})
	}
}
