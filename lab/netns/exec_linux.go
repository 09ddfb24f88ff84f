package netns

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
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
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := Start(name, cmd); err != nil {
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s in netns %s: %w: %s", strings.Join(argv, " "), name, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
