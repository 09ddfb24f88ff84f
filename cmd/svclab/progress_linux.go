package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/svclab/svclab/lab/guest"
	"github.com/svclab/svclab/sim/metric"
)

// progressMode is --progress: how a long command shows how far it is.
type progressMode string

// The progress modes.
const (
	// progressAuto is a bar on a terminal, lines elsewhere and under CI.
	progressAuto progressMode = "auto"
	// progressPlain is one line per tenth of the work, with no carriage
	// returns: for CI logs and files.
	progressPlain progressMode = "plain"
	// progressNone shows nothing (log lines still go to stderr).
	progressNone progressMode = "none"
)

// addProgressFlag registers --progress auto|plain|none.
func addProgressFlag(fs *flag.FlagSet) *progressMode {
	m := progressAuto
	fs.Func("progress", "", func(s string) error {
		switch v := progressMode(s); v {
		case progressAuto, progressPlain, progressNone:
			m = v
			return nil
		}
		return fmt.Errorf("want auto, plain or none")
	})
	return &m
}

// progress shows how far a run is on stderr: a bar with an ETA on a
// terminal, or plain lines. Log lines printed while the bar is shown clear
// it first.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	bar     *progressbar.ProgressBar
	mode    progressMode // plain or none once resolved; auto means the bar
	max     int
	start   time.Time
	printed int // the last tenth a plain line was printed for
}

// newProgress resolves mode: auto shows a bar only on a terminal, when CI
// is not set, and never inside a user-mode-linux guest, whose serial
// console looks like one; otherwise it prints plain lines.
func newProgress(w io.Writer, mode progressMode) *progress {
	if mode == progressAuto {
		f, ok := w.(*os.File)
		tty := ok && term.IsTerminal(int(f.Fd())) && !guest.Inside() && os.Getenv("CI") == ""
		if !tty {
			mode = progressPlain
		}
	}
	if guest.Inside() {
		mode = progressNone // the host shows the guest's run
	}
	return &progress{w: w, mode: mode, start: time.Now(), printed: -1}
}

// set moves the bar to done of total.
func (p *progress) set(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.mode {
	case progressNone:
		return
	case progressPlain:
		p.line(done, total)
		return
	}
	if p.bar == nil || p.max != total {
		p.max = total
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription("measuring"),
			progressbar.OptionClearOnFinish(), progressbar.OptionFullWidth())
	}
	_ = p.bar.Set(done)
}

// line prints "progress: 6/20 steps (30%), 12.0 s so far, about 28.0 s
// left" when done reaches a new tenth of total.
func (p *progress) line(done, total int) {
	if total <= 0 {
		return
	}
	tenth := done * 10 / total
	if tenth == p.printed {
		return
	}
	p.printed = tenth
	elapsed := time.Since(p.start).Seconds()
	left := ""
	if done > 0 && done < total {
		left = ", about " + metric.FormatSeconds(elapsed*float64(total-done)/float64(done)) + " left"
	}
	fmt.Fprintf(p.w, "progress: %d/%d steps (%d%%), %s so far%s\n", done, total, done*100/total, metric.FormatSeconds(elapsed), left)
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
	}
}
