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
	mu   sync.Mutex
	w    io.Writer
	bar  *progressbar.ProgressBar
	mode progressMode // plain or none once resolved; auto means the bar
	max  int
	// start is when the command began ("so far"); first and firstDone
	// when the first step was reported and how many were done then: the
	// rate the time left is estimated from, as the probes a run times
	// before its first step (a minute or two) are not its steps' pace.
	start     time.Time
	first     time.Time
	firstDone int
	// deadline, when set, is when the run ends at the latest (a sweep
	// starts no repetition that would end after it): the time left never
	// passes it, although the steps counted are those of every repetition.
	deadline time.Time
	now      func() time.Time
	printed  int // the last tenth a plain line was printed for
	// done and total are the last step reported; stepEnded when done last
	// moved and lastLine when a line last went out: a plain progress says
	// every heartbeatEvery that a long step is still under way.
	done, total int
	stepEnded   time.Time
	lastLine    time.Time
	stop        chan struct{}
}

// heartbeatEvery is how long plain progress stays silent during a step
// before it says the step is still under way (a full sync of a large
// iptables-nft ruleset takes most of an hour).
const heartbeatEvery = 2 * time.Minute

// newProgress resolves mode: auto shows a bar only on a terminal, when CI
// is not set, and never inside a user-mode-linux guest, whose serial
// console looks like one; otherwise it prints plain lines. deadline (zero
// for none) bounds the time left it shows.
func newProgress(w io.Writer, mode progressMode, deadline time.Time) *progress {
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
	p := &progress{w: w, mode: mode, start: time.Now(), deadline: deadline, now: time.Now, printed: -1, stop: make(chan struct{})}
	p.lastLine = p.start
	switch mode {
	case progressPlain:
		go p.heartbeats(time.Tick(heartbeatEvery / 8))
	case progressAuto:
		go p.heartbeats(time.Tick(time.Second))
	}
	return p
}

// heartbeats calls beat on every tick until finish.
func (p *progress) heartbeats(tick <-chan time.Time) {
	for {
		select {
		case <-p.stop:
			return
		case <-tick:
			p.beat()
		}
	}
}

// beat redraws the bar, whose elapsed time then moves on during a long
// step, or in plain mode prints "progress: 0/4 steps (0%), 720 s so far,
// a step under way for 630 s" when steps have begun and nothing was
// printed for heartbeatEvery.
func (p *progress) beat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.mode == progressAuto && p.bar != nil:
		_ = p.bar.RenderBlank()
		return
	case p.mode != progressPlain:
		return
	}
	now := p.now()
	if p.total <= 0 || p.done >= p.total || now.Sub(p.lastLine) < heartbeatEvery {
		return
	}
	p.lastLine = now
	fmt.Fprintf(p.w, "progress: %d/%d steps (%d%%), %s so far, a step under way for %s\n", p.done, p.total, p.done*100/p.total,
		metric.FormatSeconds(now.Sub(p.start).Seconds()), metric.FormatSeconds(now.Sub(p.stepEnded).Seconds()))
}

// set moves the bar to done of total.
func (p *progress) set(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.first.IsZero() {
		p.first, p.firstDone = now, done
	}
	if done != p.done || p.stepEnded.IsZero() {
		p.stepEnded = now
	}
	p.done, p.total = done, total
	switch p.mode {
	case progressNone:
		return
	case progressPlain:
		p.line(done, total)
		return
	}
	if p.bar == nil || p.max != total {
		p.max = total
		description := "measuring"
		if !p.deadline.IsZero() {
			description = "measuring, ends by " + p.deadline.Format("15:04:05")
		}
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(p.deadline.IsZero()), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetDescription(description),
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
	now := p.now()
	p.lastLine = now
	fmt.Fprintf(p.w, "progress: %d/%d steps (%d%%), %s so far%s\n", done, total, done*100/total, metric.FormatSeconds(now.Sub(p.start).Seconds()), p.left(done, total, now))
}

// left is the time left as line shows it: the pace of the steps since the
// first one reported, at most what is left to the deadline; nothing when
// done, or before a step's pace is known and without a deadline.
func (p *progress) left(done, total int, now time.Time) string {
	if done >= total {
		return ""
	}
	estimate := -1.0
	if steps := done - p.firstDone; steps > 0 {
		estimate = now.Sub(p.first).Seconds() * float64(total-done) / float64(steps)
	}
	if p.deadline.IsZero() {
		if estimate < 0 {
			return ""
		}
		return ", about " + metric.FormatSeconds(estimate) + " left"
	}
	until := p.deadline.Sub(now).Seconds()
	switch {
	case until <= 0:
		return ", past its time budget, finishing"
	case estimate < 0 || until < estimate:
		return ", at most about " + metric.FormatSeconds(until) + " left (its time budget; repetitions that would end after it are not started)"
	}
	return ", about " + metric.FormatSeconds(estimate) + " left"
}

// logf wraps a logger so its lines do not tear the bar.
func (p *progress) logf(inner func(string, ...any)) func(string, ...any) {
	return func(format string, args ...any) {
		p.mu.Lock()
		defer p.mu.Unlock() // a heartbeat redraws no bar between the clearing and the line
		if p.bar != nil {
			_ = p.bar.Clear()
		}
		p.lastLine = p.now()
		inner(format, args...)
	}
}

// finish ends the bar and the heartbeats.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
