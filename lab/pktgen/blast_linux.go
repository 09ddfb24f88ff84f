package pktgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Blast sends the SYNs of spec from the client namespace and reports what
// the client's socket accepted. It stops when spec.Packets are sent, when
// spec.Duration of sending time has passed, or when ctx is done; in the
// last case it returns the result so far with ctx's error.
func Blast(ctx context.Context, spec Spec) (Result, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return Result{}, fmt.Errorf("blast from netns %s: %w", spec.ClientNetns, err)
	}
	path, err := discoverPath(spec)
	if err != nil {
		return Result{}, fmt.Errorf("blast from netns %s: %w", spec.ClientNetns, err)
	}
	templates := make([]frameTemplate, len(spec.Targets))
	for i, t := range spec.Targets {
		if templates[i], err = newFrameTemplate(path.link, path.src, t); err != nil {
			return Result{}, err
		}
	}
	sock, err := openTx(spec.ClientNetns, spec.Iface, path.ifindex)
	if err != nil {
		return Result{}, err
	}
	res, err := newBlaster(spec, templates, sock).run(ctx)
	return res, errors.Join(err, sock.close())
}

// blaster is the state of one running blast.
type blaster struct {
	spec      Spec
	templates []frameTemplate
	sock      *txSocket
	random    *rand.Rand // nil for round-robin
	frames    [][]byte   // batchSize views into one buffer

	res        Result
	next       int           // index of the next packet
	sinceFlush int           // packets since the last flush
	start      time.Time     // when sending began
	paused     time.Duration // flush time since start
	// overslept is how late the timer woke the sender for the latest
	// batch; zero when the batch was already due without a sleep.
	overslept time.Duration
}

func newBlaster(spec Spec, templates []frameTemplate, sock *txSocket) *blaster {
	b := &blaster{spec: spec, templates: templates, sock: sock}
	if spec.Random {
		b.random = rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
	}
	buf := make([]byte, batchSize*frameLen)
	for i := range batchSize {
		b.frames = append(b.frames, buf[i*frameLen:(i+1)*frameLen:(i+1)*frameLen])
	}
	return b
}

// run flushes conntrack, then sends batch after batch until a bound is met.
func (b *blaster) run(ctx context.Context) (Result, error) {
	if err := b.flush(); err != nil {
		return b.res, err
	}
	b.paused = 0
	b.start = time.Now()
	var err error
	for {
		n := b.nextBatch(ctx)
		if n == 0 {
			err = ctx.Err()
			break
		}
		if err = b.sendBatch(n); err != nil {
			break
		}
		if b.spec.FlushConntrack != nil && b.sinceFlush >= b.spec.FlushEvery {
			if err = b.flush(); err != nil {
				break
			}
		}
	}
	// A paced blast's last wake-up is late by the timer's slack, not by
	// the sender's: keep it off the clock. Earlier lateness the sender
	// must catch up, or it shows as a shortfall.
	b.res.Elapsed = b.active() - b.overslept
	if secs := b.res.Elapsed.Seconds(); secs > 0 {
		b.res.PPS = float64(b.res.Sent) / secs
	}
	return b.res, err
}

// active is the sending time so far, flushes excluded.
func (b *blaster) active() time.Duration { return time.Since(b.start) - b.paused }

// nextBatch returns the size of the next batch, waiting until its first
// packet is due; 0 means the blast is over. A sender that keeps up thus
// finishes a paced blast of P packets a little before P/Rate.
func (b *blaster) nextBatch(ctx context.Context) int {
	n := batchSize
	if b.spec.Packets > 0 {
		n = min(n, b.spec.Packets-b.next)
	}
	if b.spec.FlushConntrack != nil {
		n = min(n, b.spec.FlushEvery-b.sinceFlush)
	}
	slept := false
	for n > 0 && ctx.Err() == nil {
		active := b.active()
		if b.spec.Duration > 0 && active >= b.spec.Duration {
			b.overslept = 0 // the clock, not the pacer, ended the blast
			return 0
		}
		if b.spec.Rate == 0 {
			return n
		}
		wait := time.Duration(float64(b.next)/b.spec.Rate*float64(time.Second)) - active
		if wait <= 0 {
			b.overslept = 0
			if slept {
				b.overslept = -wait
			}
			return n
		}
		slept = true
		if b.spec.Duration > 0 {
			wait = min(wait, b.spec.Duration-active)
		}
		sleep(ctx, wait)
	}
	return 0
}

// sendBatch stamps and sends the next n frames.
func (b *blaster) sendBatch(n int) error {
	ports := b.spec.SrcPorts
	for i, frame := range b.frames[:n] {
		index := b.next + i
		port := ports.First + uint16(index%ports.size())
		b.templates[b.target(index)].stamp(frame, port, uint32(index)*2654435761)
	}
	sent, refused, err := b.sock.send(b.frames[:n])
	b.res.Sent += sent
	b.res.Dropped += refused
	b.res.RepeatedTuples += max(0, b.sinceFlush+n-max(b.sinceFlush, ports.size()))
	b.next += n
	b.sinceFlush += n
	return err
}

// target picks the template of the index-th packet.
func (b *blaster) target(index int) int {
	if b.random != nil {
		return b.random.IntN(len(b.templates))
	}
	return index % len(b.templates)
}

// flush calls the conntrack hook, if any, and keeps its time off the clock.
func (b *blaster) flush() error {
	if b.spec.FlushConntrack == nil {
		return nil
	}
	began := time.Now()
	err := b.spec.FlushConntrack()
	took := time.Since(began)
	b.res.FlushTime += took
	b.paused += took
	b.res.Flushes++
	b.sinceFlush = 0
	if err != nil {
		return fmt.Errorf("flush conntrack after %d packets: %w", b.next, err)
	}
	return nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
