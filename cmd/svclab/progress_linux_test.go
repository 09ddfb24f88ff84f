package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLineTimeLeft checks the plain lines' time left: paced by the
// steps since the first one reported (not by the probes timed before it),
// and never past a run's deadline.
func TestProgressLineTimeLeft(t *testing.T) {
	start := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		deadline time.Duration // after start; 0 for none
		first    time.Duration // when the first step (1 of 100) was reported
		at       time.Duration // when done steps were reported
		done     int
		want     string
	}{
		{"first step, no pace yet", 0, 60 * time.Second, 60 * time.Second, 1, "progress: 1/100 steps (1%), 60.0 s so far\n"},
		{"paced from the first step", 0, 60 * time.Second, 70 * time.Second, 11, "progress: 11/100 steps (11%), 70.0 s so far, about 89.0 s left\n"},
		{"first step, a deadline", 180 * time.Second, 60 * time.Second, 60 * time.Second, 1,
			"progress: 1/100 steps (1%), 60.0 s so far, at most about 120 s left (its time budget; repetitions that would end after it are not started)\n"},
		{"pace beyond the deadline", 180 * time.Second, 60 * time.Second, 110 * time.Second, 11,
			"progress: 11/100 steps (11%), 110 s so far, at most about 70.0 s left (its time budget; repetitions that would end after it are not started)\n"},
		{"pace within the deadline", 600 * time.Second, 60 * time.Second, 70 * time.Second, 11, "progress: 11/100 steps (11%), 70.0 s so far, about 89.0 s left\n"},
		{"past the deadline", 180 * time.Second, 60 * time.Second, 190 * time.Second, 31, "progress: 31/100 steps (31%), 190 s so far, past its time budget, finishing\n"},
		{"done", 180 * time.Second, 60 * time.Second, 150 * time.Second, 100, "progress: 100/100 steps (100%), 150 s so far\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var deadline time.Time
			if tt.deadline > 0 {
				deadline = start.Add(tt.deadline)
			}
			p := newProgress(&out, progressPlain, deadline)
			p.finish() // no heartbeats: the test sets the clock
			p.start = start
			clock := start.Add(tt.first)
			p.now = func() time.Time { return clock }
			p.set(1, 100)
			clock = start.Add(tt.at)
			out.Reset()
			p.printed = -1
			p.set(tt.done, 100)
			if got := out.String(); got != tt.want {
				t.Errorf("line %q, want %q", got, tt.want)
			}
			if strings.Count(out.String(), "\n") != 1 {
				t.Errorf("want one line, got %q", out.String())
			}
		})
	}
}

// TestProgressHeartbeat checks that plain progress says a long step is
// under way once it was silent for heartbeatEvery, and not before the
// steps begin, sooner, or after the last.
func TestProgressHeartbeat(t *testing.T) {
	start := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := newProgress(&out, progressPlain, time.Time{})
	p.finish() // the test beats by hand
	p.start, p.lastLine = start, start
	clock := start
	p.now = func() time.Time { return clock }
	at := func(d time.Duration) { clock = start.Add(d) }
	for _, tt := range []struct {
		name string
		act  func()
		want string
	}{
		{"probes before the steps", func() { at(5 * time.Minute); p.beat() }, ""},
		{"the steps begin", func() { at(6 * time.Minute); p.set(0, 4) }, "progress: 0/4 steps (0%), 360 s so far\n"},
		{"too soon", func() { at(7 * time.Minute); p.beat() }, ""},
		{"a long step", func() { at(8*time.Minute + time.Second); p.beat() }, "progress: 0/4 steps (0%), 481 s so far, a step under way for 121 s\n"},
		{"soon after it", func() { at(9 * time.Minute); p.beat() }, ""},
		{"a log line is a sign of life", func() {
			at(10*time.Minute + 2*time.Second)
			p.logf(func(string, ...any) {})("loading")
			at(11 * time.Minute)
			p.beat()
		}, ""},
		{"still under way", func() { at(12*time.Minute + 3*time.Second); p.beat() }, "progress: 0/4 steps (0%), 723 s so far, a step under way for 363 s\n"},
		{"the step ends", func() { at(13 * time.Minute); p.set(1, 4) }, "progress: 1/4 steps (25%), 780 s so far, about 1260 s left\n"},
		{"the next step is timed from there", func() { at(15*time.Minute + time.Second); p.beat() }, "progress: 1/4 steps (25%), 901 s so far, a step under way for 121 s\n"},
		{"done", func() { at(16 * time.Minute); p.set(4, 4); out.Reset(); at(30 * time.Minute); p.beat() }, ""},
	} {
		out.Reset()
		tt.act()
		if got := out.String(); got != tt.want {
			t.Errorf("%s: printed %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProgressBarHeartbeat checks that a beat redraws the bar (so that its
// elapsed time moves on during a long step) and prints no plain line.
func TestProgressBarHeartbeat(t *testing.T) {
	var out bytes.Buffer
	p := &progress{w: &out, mode: progressAuto, start: time.Now(), now: time.Now, printed: -1, stop: make(chan struct{})}
	p.beat() // no bar yet: nothing
	if out.Len() != 0 {
		t.Fatalf("a beat before the bar printed %q", out.String())
	}
	p.set(0, 4)
	drawn := out.Len()
	p.beat()
	if out.Len() <= drawn {
		t.Errorf("a beat did not redraw the bar: %q", out.String())
	}
	if strings.Contains(out.String(), "progress:") {
		t.Errorf("a bar's beat printed a plain line: %q", out.String())
	}
}
