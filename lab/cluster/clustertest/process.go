package clustertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is one control-plane program, its output in dir/NAME.log.
type process struct {
	name    string
	cmd     *exec.Cmd
	logFile string
	done    chan struct{}
	err     error
}

// start runs path with args; p.err says why it did not start. The process
// dies with the test process (Pdeathsig), so a killed test leaves none.
func (cp *ControlPlane) start(path, name string, args ...string) *process {
	p := &process{name: name, logFile: filepath.Join(cp.dir, name+".log"), done: make(chan struct{})}
	log, err := os.Create(p.logFile)
	if err != nil {
		p.err = err
		return p
	}
	p.cmd = exec.Command(path, args...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		log.Close()
		p.err = fmt.Errorf("start %s: %w", path, err)
		return p
	}
	cp.procs = append(cp.procs, p)
	go func() {
		_ = p.cmd.Wait()
		log.Close()
		close(p.done)
	}()
	return p
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL after 15 s. An exit before stop was
// asked is an error with the log's end.
func (p *process) stop() error {
	if p.exited() {
		return fmt.Errorf("%s had exited (%v): %s", p.name, p.cmd.ProcessState, p.tail())
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}

// tail is the last 3 KB of the log.
func (p *process) tail() string {
	b, err := os.ReadFile(p.logFile)
	if err != nil {
		return err.Error()
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}
