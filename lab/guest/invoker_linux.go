package guest

import "os"

// invokerEnv passes sudo's SUDO_UID and SUDO_GID to a user-mode-linux
// guest's svclab, so that what it writes into the shared run directory
// belongs to the user who ran sudo, as on the host (atomicfile.GiveToInvoker;
// hostfs carries the chown to the host's file).
func invokerEnv() []string {
	var env []string
	for _, k := range []string{"SUDO_UID", "SUDO_GID"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
