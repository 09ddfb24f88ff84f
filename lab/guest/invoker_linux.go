package guest

import (
	"os"
	"path/filepath"

	"github.com/svclab/svclab/lab/kubeproxy"
)

// invokerEnv is the environment a user-mode-linux guest's svclab gets from
// the host's:
//   - sudo's SUDO_UID and SUDO_GID, so that what it writes into the shared
//     run directory belongs to the user who ran sudo, as on the host
//     (atomicfile.GiveToInvoker; hostfs carries the chown to the host's file);
//   - $SVCLAB_KUBE_PROXY_DRIVERS, made absolute (the guest's svclab runs in
//     the run directory), so that --engine kube-proxy finds the same
//     drivers in the guest as on the host. Without it a guest run of
//     kube-proxy's IPVS proxier looked only next to svclab and failed.
func invokerEnv() []string {
	var env []string
	for _, k := range []string{"SUDO_UID", "SUDO_GID"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	if dir := os.Getenv(kubeproxy.DirEnv); dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		env = append(env, kubeproxy.DirEnv+"="+dir)
	}
	return env
}
