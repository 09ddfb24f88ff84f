package clustertest

import (
	"bytes"
	"io"
	"sync"
)

// lineLog is one output stream of a container, written to a log it shares
// with the container's other stream a whole line at a time (mu is the
// log's, shared by both streams). The part of a line not ended yet waits
// in buf for its newline, or for flush.
type lineLog struct {
	mu  *sync.Mutex
	w   io.Writer
	buf []byte
}

// Write keeps p and writes every line it completes.
func (l *lineLog) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	end := bytes.LastIndexByte(l.buf, '\n') + 1
	if end == 0 {
		return len(p), nil
	}
	err := l.write(l.buf[:end])
	l.buf = append(l.buf[:0], l.buf[end:]...)
	return len(p), err
}

// flush writes the last, unended line (the stream ended without a
// newline).
func (l *lineLog) flush() {
	if len(l.buf) > 0 {
		_ = l.write(l.buf)
		l.buf = nil
	}
}

func (l *lineLog) write(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(b)
	return err
}
