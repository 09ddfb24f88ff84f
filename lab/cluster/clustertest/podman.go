package clustertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	corev1 "k8s.io/api/core/v1"
)

// containerPrefix names the agent's podman containers (svclab's run
// prefix, so `svclab cleanup` and a reader of `podman ps` know them).
const containerPrefix = "svl-pod-"

// podmanConf is the containers.conf the agent's podman runs with (the
// CONTAINERS_CONF environment variable; nothing under /etc is touched): on a
// host with cgroup v1 hierarchies plus a cgroup2 mount crun refuses the
// "hybrid" layout, so runc with the cgroupfs manager, and no default
// ulimits, which may exceed what the host allows.
const podmanConf = `[containers]
default_ulimits = []
log_driver = "k8s-file"
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
`

// podmanConfFile is the agent's containers.conf, written once at start
// (writePodmanConf).
func (a *NodeAgent) podmanConfFile() string { return filepath.Join(a.cfg.Dir, "containers.conf") }

// writePodmanConf writes podmanConf for the agent's podman commands.
func (a *NodeAgent) writePodmanConf() error {
	if err := os.WriteFile(a.podmanConfFile(), []byte(podmanConf), 0o644); err != nil {
		return fmt.Errorf("node agent: podman configuration: %w", err)
	}
	return nil
}

// podman is a podman command with the agent's configuration: every call
// (run, ps, rm) sees the same runtime and cgroup manager.
func (a *NodeAgent) podman(args ...string) *exec.Cmd {
	cmd := exec.Command("podman", args...)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+a.podmanConfFile())
	return cmd
}

// containerName is the podman container of pod p.
func containerName(p *corev1.Pod) string {
	return containerPrefix + string(p.UID)
}

// podmanCommand runs the pod's one container in a.cfg.Image with podman,
// as a kubelet's runtime would run it: the container's command as the
// entrypoint (its first word) and arguments, its env, privileged when its
// securityContext says so, in a network namespace of its own with only
// loopback (a lab run builds its own inside). `podman run` stays attached:
// its output is the container's, its exit code the container's, and a
// SIGTERM sent to it is passed to the container.
// Its stdout and stderr reach the log a whole line at a time (lineLog), as
// a kubelet's log keeps each line of either stream whole: podman copies
// the two streams in chunks, which otherwise cut into each other's lines.
// finish writes what is left and closes the log.
func (a *NodeAgent) podmanCommand(p *corev1.Pod, c corev1.Container, env []string, log *os.File) (cmd *exec.Cmd, finish func()) {
	args := []string{"run", "--rm", "--name", containerName(p), "--network", "none", "--pull", "never",
		"--hostname", p.Name, "--sig-proxy=true", "--entrypoint", c.Command[0]}
	if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged {
		args = append(args, "--privileged")
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			args = append(args, "--env", kv)
		}
	}
	args = append(append(append(args, a.cfg.Image), c.Command[1:]...), c.Args...)
	cmd = a.podman(args...)
	var mu sync.Mutex
	stdout, stderr := &lineLog{mu: &mu, w: log}, &lineLog{mu: &mu, w: log}
	cmd.Stdout, cmd.Stderr, cmd.Dir = stdout, stderr, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, func() {
		stdout.flush()
		stderr.flush()
		_ = log.Close()
	}
}

// removeContainers force-removes every container the agent started that
// is left (podman run's --rm removes those that ended; a killed `podman
// run` leaves its container running).
func (a *NodeAgent) removeContainers() {
	if a.cfg.Image == "" {
		return
	}
	out, err := a.podman("ps", "-a", "--filter", "name=^"+containerPrefix, "--format", "{{.Names}}").Output()
	if err != nil {
		a.logf("list podman containers: %v", err)
		return
	}
	for _, name := range strings.Fields(string(out)) {
		if b, err := a.podman("rm", "-f", "-t", "0", name).CombinedOutput(); err != nil {
			a.logf("remove container %s: %v: %s", name, err, b)
		}
	}
}
