package netns

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Start starts cmd inside the named namespace: the child is forked from a
// thread that sits in it, so it inherits the namespace. Wait as usual.
func Start(name string, cmd *exec.Cmd) error {
	if err := Do(name, cmd.Start); err != nil {
		return fmt.Errorf("start %s in netns %s: %w", strings.Join(cmd.Args, " "), name, err)
	}
	return nil
}

// Output runs a command inside the named namespace with stdin as its input
// and returns its standard output. A failure carries the command's stderr.
func Output(name string, stdin []byte, argv ...string) ([]byte, error) {
	out, _, err := OutputCPU(name, stdin, argv...)
	return out, err
}

// OutputCPU is Output that also returns the CPU time (user plus system) the
// command's process used, from its rusage: the work it did, whatever the
// machine's load made it wait (wall-clock time counts the waiting too).
func OutputCPU(name string, stdin []byte, argv ...string) ([]byte, time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := Start(name, cmd); err != nil {
		return nil, 0, err
	}
	err := cmd.Wait()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return stdout.Bytes(), cpu, fmt.Errorf("%s in netns %s: %w: %s", strings.Join(argv, " "), name, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), cpu, nil
}
