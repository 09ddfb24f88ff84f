package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/topo"
)

// DaemonCommand is the hidden svclab subcommand that serves an `up` lab
// (it calls ServeUp).
const DaemonCommand = "__lab-daemon"

// upStartTimeout bounds how long StartUp waits for the lab to answer.
const upStartTimeout = 2 * time.Minute

// StartUp starts the `svclab up` daemon for the scenario named source (a
// path or an embedded name) in a session of its own, with daemonArgs added
// to its flags, and waits until its lab answers. On failure it removes what
// the daemon made, its log included, and returns the daemon's output.
func StartUp(source, dataplane string, daemonArgs ...string) (UpState, error) {
	if os.Geteuid() != 0 {
		return UpState{}, ErrNeedsRoot
	}
	prefix := topo.NewPrefix()
	var logFile *os.File
	err := lease.InDir(func() (err error) {
		logFile, err = os.Create(logPath(prefix))
		return err
	})
	if err != nil {
		return UpState{}, err
	}
	defer logFile.Close()
	self, err := os.Executable()
	if err != nil {
		return UpState{}, err
	}
	args := append([]string{DaemonCommand, "--dataplane", dataplane, "--prefix", prefix}, daemonArgs...)
	cmd := exec.Command(self, append(args, source)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		RemoveState(prefix)
		return UpState{}, fmt.Errorf("start the lab daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(upStartTimeout); time.Now().Before(deadline); {
		if st, err := LoadState(prefix); err == nil {
			return st, nil
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath(prefix))
			_, cerr := Cleanup(CleanupOptions{Prefix: prefix})
			RemoveState(prefix)
			return UpState{}, errors.Join(fmt.Errorf("the lab daemon exited (%v):\n%s", err, log), cerr)
		case <-time.After(100 * time.Millisecond):
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	<-exited
	_, cerr := Cleanup(CleanupOptions{Prefix: prefix})
	RemoveState(prefix)
	return UpState{}, errors.Join(fmt.Errorf("the lab daemon did not come up within %v", upStartTimeout), cerr)
}
