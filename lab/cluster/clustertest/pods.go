package clustertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// podRoot makes the pod's root: a tmpfs holding a recursive bind of each of
// this machine's top-level directories except the writable one, which is an
// empty directory of the tmpfs; then it runs the command chrooted there. It
// runs in the pod's own mount namespace (unshare --mount --propagation
// private), so none of these mounts is seen outside it and all go with it.
const podRoot = `set -e
root=$1 writable=$2; shift 2
mount -t tmpfs svclab-pod "$root"
for d in /*; do
  if [ "$d" = "$writable" ] || [ ! -d "$d" ]; then continue; fi
  mkdir "$root$d"
  mount --rbind "$d" "$root$d"
done
mkdir -m 0755 "$root$writable"
exec chroot "$root" "$@"
`

// podPath is the pods' PATH (as a Debian image's).
const podPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// podRun is a pod's process.
type podRun struct {
	cmd *exec.Cmd
	// done is closed when the process ended and the pod's status says so.
	done chan struct{}
	// finish completes and closes the pod's log after the process ended.
	finish     func()
	terminated sync.Once
}

// kill sends SIGKILL and waits for the process (if the pod had one).
func (r *podRun) kill() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill()
	}
	<-r.done
}

// logEntry is a pod's log file and its one container's name.
type logEntry struct{ file, container string }

// startPod runs a pod bound to one of the agent's nodes: its one container
// as a local process, then its status as a kubelet writes it. A pod the
// agent cannot run (more containers, an unknown command, an env source it
// does not resolve) is marked Failed with the reason.
func (a *NodeAgent) startPod(ctx context.Context, p *corev1.Pod) error {
	a.mu.Lock()
	_, started := a.pods[string(p.UID)]
	a.mu.Unlock()
	if started {
		return nil
	}
	cmd, finish, err := a.command(p)
	if err != nil {
		a.markStarted(p, &podRun{done: closed()})
		return a.setFinished(ctx, p, -1, time.Now(), fmt.Sprintf("svclab node agent cannot run it: %v", err))
	}
	if err := cmd.Start(); err != nil {
		finish()
		a.markStarted(p, &podRun{done: closed()})
		return a.setFinished(ctx, p, -1, time.Now(), fmt.Sprintf("start: %v", err))
	}
	r := &podRun{cmd: cmd, done: make(chan struct{}), finish: finish}
	a.markStarted(p, r)
	start := time.Now()
	a.logf("started pod %s/%s on %s (pid %d)", p.Namespace, p.Name, p.Spec.NodeName, cmd.Process.Pid)
	go a.await(p, r, start)
	return a.setRunning(ctx, p, start, cmd.Process.Pid)
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (a *NodeAgent) markStarted(p *corev1.Pod, r *podRun) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pods[string(p.UID)] = r
}

// await waits for the pod's process and writes its end into the pod's
// status.
func (a *NodeAgent) await(p *corev1.Pod, r *podRun, start time.Time) {
	defer close(r.done)
	err := r.cmd.Wait()
	r.finish() // the log is whole before the status says the pod ended
	code := r.cmd.ProcessState.ExitCode()
	if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	a.logf("pod %s/%s ended: exit %d (%v)", p.Namespace, p.Name, code, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.setFinished(ctx, p, code, start, ""); err != nil {
		a.logf("%v", err)
	}
}

// command builds the pod's process: its container's command and args, the
// program the agent's Commands name for the command, its env resolved,
// run in its own root (podRoot) with its output to the pod's log; finish
// closes the log once the process ended (or did not start).
func (a *NodeAgent) command(p *corev1.Pod) (cmd *exec.Cmd, finish func(), err error) {
	if len(p.Spec.Containers) != 1 || len(p.Spec.InitContainers) > 0 {
		return nil, nil, fmt.Errorf("%d containers and %d init containers: the agent runs pods of one container", len(p.Spec.Containers), len(p.Spec.InitContainers))
	}
	c := p.Spec.Containers[0]
	if len(c.Command) == 0 {
		return nil, nil, fmt.Errorf("container %s has no command (the image's entrypoint is not known here)", c.Name)
	}
	prog, ok := a.cfg.Commands[c.Command[0]]
	if !ok && a.cfg.Image == "" {
		return nil, nil, fmt.Errorf("container %s: command %q has no local program (AgentConfig.Commands)", c.Name, c.Command[0])
	}
	env, err := podEnv(p, c)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(a.cfg.Dir, "pods", p.Namespace+"_"+p.Name)
	if err := os.MkdirAll(filepath.Join(dir, "root"), 0o755); err != nil {
		return nil, nil, err
	}
	logFile := filepath.Join(dir, c.Name+".log")
	log, err := os.Create(logFile)
	if err != nil {
		return nil, nil, err
	}
	a.mu.Lock()
	a.logs[p.Namespace+"/"+p.Name] = logEntry{file: logFile, container: c.Name}
	a.mu.Unlock()
	if a.cfg.Image != "" {
		cmd, finish := a.podmanCommand(p, c, env, log)
		return cmd, finish, nil
	}
	args := append([]string{"--mount", "--propagation", "private", "--", "sh", "-c", podRoot, "sh", filepath.Join(dir, "root"), a.cfg.Writable, prog}, c.Command[1:]...)
	cmd = exec.Command("unshare", append(args, c.Args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = env, log, log, "/"
	// The pod's process dies with the test process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, func() { _ = log.Close() }, nil
}

// podEnv is the container's environment as the kubelet gives it: PATH and
// HOSTNAME, then its env in order, values or the downward API fields the
// agent knows. $(VAR) references are not expanded.
func podEnv(p *corev1.Pod, c corev1.Container) ([]string, error) {
	env := []string{"PATH=" + podPath, "HOSTNAME=" + p.Name, "HOME=/root"}
	if len(c.EnvFrom) > 0 {
		return nil, fmt.Errorf("container %s: envFrom is not supported by the node agent", c.Name)
	}
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				return nil, fmt.Errorf("container %s env %s: only fieldRef sources are supported by the node agent", c.Name, e.Name)
			}
			var err error
			if v, err = fieldValue(p, e.ValueFrom.FieldRef.FieldPath); err != nil {
				return nil, fmt.Errorf("container %s env %s: %w", c.Name, e.Name, err)
			}
		}
		env = append(env, e.Name+"="+v)
	}
	return env, nil
}

// fieldValue is a downward API field of the pod.
func fieldValue(p *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return p.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	}
	for prefix, values := range map[string]map[string]string{"metadata.annotations['": p.Annotations, "metadata.labels['": p.Labels} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			if key, ok := strings.CutSuffix(rest, "']"); ok {
				return values[key], nil
			}
		}
	}
	return "", fmt.Errorf("fieldRef %q is not known to the node agent", path)
}

// terminate handles a pod being deleted (deletionTimestamp set), as a
// kubelet does: a running process gets SIGTERM, then SIGKILL after the
// pod's grace period; once it ended (or never ran) the pod is deleted with
// grace period 0, which removes it (or leaves it to its finalizers).
func (a *NodeAgent) terminate(ctx context.Context, p *corev1.Pod) error {
	a.mu.Lock()
	r := a.pods[string(p.UID)]
	a.mu.Unlock()
	if r != nil && r.cmd != nil {
		select {
		case <-r.done:
		default:
			r.terminated.Do(func() {
				a.logf("pod %s/%s deleted: SIGTERM to pid %d", p.Namespace, p.Name, r.cmd.Process.Pid)
				_ = r.cmd.Process.Signal(syscall.SIGTERM)
				grace := 30 * time.Second
				if p.Spec.TerminationGracePeriodSeconds != nil {
					grace = time.Duration(*p.Spec.TerminationGracePeriodSeconds) * time.Second
				}
				time.AfterFunc(grace, func() { _ = r.cmd.Process.Kill() })
			})
			return nil
		}
	}
	err := a.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: metav1.NewUIDPreconditions(string(p.UID))})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// setRunning writes the status of a pod whose container started.
func (a *NodeAgent) setRunning(ctx context.Context, p *corev1.Pod, start time.Time, pid int) error {
	return a.updateStatus(ctx, p, func(s *corev1.PodStatus) {
		if s.Phase != corev1.PodPending {
			return // it ended already
		}
		now := metav1.NewTime(start)
		s.Phase, s.StartTime, s.HostIP = corev1.PodRunning, &now, "127.0.0.1"
		s.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
		s.Conditions = conditions(corev1.ConditionTrue, now)
		s.ContainerStatuses = []corev1.ContainerStatus{{
			Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, Ready: true, Started: new(bool),
			ContainerID: "svclab-node-agent://" + strconv.Itoa(pid),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}}
		*s.ContainerStatuses[0].Started = true
	})
}

// setFinished writes a pod's end: Succeeded for exit 0, else Failed, with
// the container's exit code (-1: it never started, message says why).
func (a *NodeAgent) setFinished(ctx context.Context, p *corev1.Pod, code int, start time.Time, message string) error {
	return a.updateStatus(ctx, p, func(s *corev1.PodStatus) {
		phase, reason := corev1.PodSucceeded, "Completed"
		if code != 0 {
			phase, reason = corev1.PodFailed, "Error"
		}
		now, started := metav1.Now(), metav1.NewTime(start)
		if s.StartTime == nil {
			s.StartTime = &started
		}
		s.Phase, s.Message, s.HostIP = phase, message, "127.0.0.1"
		s.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
		s.Conditions = conditions(corev1.ConditionFalse, now)
		s.ContainerStatuses = []corev1.ContainerStatus{{
			Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, Started: new(bool),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, Message: message, StartedAt: started, FinishedAt: now}},
		}}
	})
}

// conditions are a scheduled, initialized pod's conditions with Ready and
// ContainersReady as ready says.
func conditions(ready corev1.ConditionStatus, at metav1.Time) []corev1.PodCondition {
	return []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at},
		{Type: corev1.ContainersReady, Status: ready, LastTransitionTime: at},
		{Type: corev1.PodReady, Status: ready, LastTransitionTime: at},
	}
}

// updateStatus applies change to the pod's current status, retrying on
// conflicts. A pod that is gone is no error.
func (a *NodeAgent) updateStatus(ctx context.Context, p *corev1.Pod, change func(*corev1.PodStatus)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := a.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != p.UID {
			return apierrors.NewNotFound(corev1.Resource("pods"), p.Name)
		}
		change(&cur.Status)
		_, err = a.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("pod %s/%s status: %w", p.Namespace, p.Name, err)
	}
	return nil
}
