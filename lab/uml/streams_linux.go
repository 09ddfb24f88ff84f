package uml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// consoleTailBytes is how much of the guest console Run keeps for errors.
const consoleTailBytes = 16 << 10

// stream is a pipe from the UML process to a writer on the host.
type stream struct {
	r, w *os.File
	done chan struct{}
}

// streams are the guest's console and the program's stdout and stderr.
type streams struct {
	console, stdout, stderr *stream
	tail                    *tailBuffer
}

// openStreams makes the three pipes and starts copying each to its writer.
func openStreams(spec Spec) (*streams, error) {
	s := &streams{tail: &tailBuffer{max: consoleTailBytes}}
	consoleDst := io.Writer(s.tail)
	if spec.Console != nil {
		consoleDst = io.MultiWriter(s.tail, spec.Console)
	}
	var err error
	for _, p := range []struct {
		dst io.Writer
		out **stream
	}{{consoleDst, &s.console}, {spec.Stdout, &s.stdout}, {spec.Stderr, &s.stderr}} {
		if *p.out, err = newStream(p.dst); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	return s, nil
}

func newStream(dst io.Writer) (*stream, error) {
	if dst == nil {
		dst = io.Discard
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("make guest output pipe: %w", err)
	}
	s := &stream{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_, _ = io.Copy(dst, r)
	}()
	return s, nil
}

func (s *streams) all() []*stream { return []*stream{s.console, s.stdout, s.stderr} }

// closeWriters closes the host's copies of the write ends once the UML
// process holds them, so each copy ends when the guest's processes exit.
func (s *streams) closeWriters() {
	for _, st := range s.all() {
		if st != nil {
			st.w.Close()
		}
	}
}

// wait waits up to timeout for every copy to end, then closes the read
// ends (which stops any copy still running).
func (s *streams) wait(timeout time.Duration) error {
	deadline := time.After(timeout)
	var err error
	for _, st := range s.all() {
		select {
		case <-st.done:
		case <-deadline:
			err = errors.New("guest output pipes still open after the guest stopped")
		}
	}
	s.closeAll()
	return err
}

func (s *streams) closeAll() {
	for _, st := range s.all() {
		if st != nil {
			st.w.Close()
			st.r.Close()
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool // the first line in buf may be partial
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	return len(p), nil
}

// lastLines returns up to n of the last lines, without carriage returns
// and kernel stack trace lines (" [<6069f4e1>] dump_stack_lvl+0x4a/0x58").
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	text := string(bytes.ReplaceAll(t.buf, []byte("\r"), nil))
	if _, rest, ok := strings.Cut(text, "\n"); ok && t.truncated {
		text = rest
	}
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "[<") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
