package netns

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
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

// CPUTime is the CPU time a command's process used, from its rusage: the
// work it did, whatever the machine's load made it wait (wall-clock time
// counts the waiting too). User is the time in the tool's own code, System
// the kernel's on its behalf (for a rule loader: taking the rules in).
type CPUTime struct{ User, System time.Duration }

// Total is user plus system time.
func (c CPUTime) Total() time.Duration { return c.User + c.System }

// OutputCPU is Output that also returns the CPU time the command's process
// used.
func OutputCPU(name string, stdin []byte, argv ...string) ([]byte, CPUTime, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := Start(name, cmd); err != nil {
		return nil, CPUTime{}, err
	}
	running.add(cmd.Process, name)
	err := cmd.Wait()
	running.remove(cmd.Process)
	var cpu CPUTime
	if cmd.ProcessState != nil {
		cpu = CPUTime{User: cmd.ProcessState.UserTime(), System: cmd.ProcessState.SystemTime()}
	}
	if err != nil {
		return stdout.Bytes(), cpu, fmt.Errorf("%s in netns %s: %w: %s", strings.Join(argv, " "), name, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), cpu, nil
}

// running are the commands Output and OutputCPU wait for, by the
// namespace each runs in.
var running = commands{procs: map[*os.Process]string{}}

type commands struct {
	sync.Mutex
	procs map[*os.Process]string
}

func (c *commands) add(p *os.Process, netns string) {
	c.Lock()
	defer c.Unlock()
	c.procs[p] = netns
}

func (c *commands) remove(p *os.Process) {
	c.Lock()
	defer c.Unlock()
	delete(c.procs, p)
}

// StopCommands kills every command Output or OutputCPU is waiting for in a
// namespace whose name starts with prefix, and returns how many it killed:
// an interrupted run's (its prefix) returns from a rule load at once, where
// iptables-nft-restore --noflush of 25,000 Services runs for minutes. Their
// Output calls return the kill as an error.
func StopCommands(prefix string) int {
	running.Lock()
	defer running.Unlock()
	killed := 0
	for p, netns := range running.procs {
		if strings.HasPrefix(netns, prefix) && p.Kill() == nil {
			killed++
		}
	}
	return killed
}
