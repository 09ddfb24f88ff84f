package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/svclab/svclab/lab/guest"
)

// progress is a bar with an ETA on stderr, shown only when stderr is a
// terminal. Log lines printed while it is shown clear it first.
type progress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar
	tty bool
	max int
}

// newProgress shows a bar only on a terminal, and never inside a
// user-mode-linux guest, whose serial console looks like one.
func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd())) && !guest.Inside()}
}

// set moves the bar to done of total.
func (p *progress) set(done, total int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil || p.max != total {
		p.max = total
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription("measuring"),
			progressbar.OptionClearOnFinish(), progressbar.OptionFullWidth())
	}
	_ = p.bar.Set(done)
}

// logf wraps a logger so its lines do not tear the bar.
func (p *progress) logf(inner func(string, ...any)) func(string, ...any) {
	return func(format string, args ...any) {
		p.mu.Lock()
		if p.bar != nil {
			_ = p.bar.Clear()
		}
		p.mu.Unlock()
		inner(format, args...)
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprint(p.w, "")
	}
}
