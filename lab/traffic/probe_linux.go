package traffic

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// ProbeSpec describes a first-packet latency probe.
type ProbeSpec struct {
	Netns   string
	Count   int           // measured connects
	Warmup  int           // connects made first and not recorded
	Timeout time.Duration // per connect; 0 means DefaultTimeout
	// Target picks the address of connect i (e.g. always one service, or a
	// random one for a uniform position).
	Target func(i int) netip.AddrPort
}

// ProbeResult holds the connect latencies of a probe.
type ProbeResult struct {
	Latencies []time.Duration
	Errors    int
	FirstErr  string
	Elapsed   time.Duration
}

// Probe measures first-packet cost the quietest way this lab knows: one OS
// thread, locked inside the client namespace, makes blocking connect(2)
// calls one after another with raw sockets. connect returns when the SYN-ACK
// arrives, so each latency is the SYN's trip through the node (where
// PREROUTING walks the rules), the pod's answer and the way back, with no Go
// scheduler hand-off in between. Each socket is closed with SO_LINGER 0
// (an RST), so no TIME_WAIT state piles up.
func Probe(ctx context.Context, spec ProbeSpec) (ProbeResult, error) {
	if spec.Count <= 0 || spec.Target == nil {
		return ProbeResult{}, fmt.Errorf("probe: want Count > 0 and a Target")
	}
	if spec.Timeout == 0 {
		spec.Timeout = DefaultTimeout
	}
	res := ProbeResult{Latencies: make([]time.Duration, 0, spec.Count)}
	failed := 0 // in a row, warm-up included
	err := netns.Do(spec.Netns, func() error {
		start := time.Now()
		for i := 0; i < spec.Warmup+spec.Count; i++ {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			d, err := blockingConnect(spec.Target(i), spec.Timeout)
			if failed = failed + 1; err == nil {
				failed = 0
			}
			if failed >= failFast && len(res.Latencies) == 0 {
				return fmt.Errorf("probe: the first %d connects failed, giving up: %w", failed, err)
			}
			if i < spec.Warmup {
				continue
			}
			if err != nil {
				res.Errors++
				if res.FirstErr == "" {
					res.FirstErr = err.Error()
				}
				continue
			}
			res.Latencies = append(res.Latencies, d)
		}
		res.Elapsed = time.Since(start)
		return nil
	})
	if err == nil && len(res.Latencies) == 0 {
		err = fmt.Errorf("probe: all %d connects failed, first: %s", spec.Count, res.FirstErr)
	}
	return res, err
}

// eintrRetries bounds the retries of a connect that a signal interrupted.
const eintrRetries = 3

// blockingConnect times one connect(2) to addr and resets the connection.
// A connect interrupted by a signal (the Go runtime preempts with SIGURG)
// did not measure the network: it is retried on a fresh socket.
func blockingConnect(addr netip.AddrPort, timeout time.Duration) (time.Duration, error) {
	for attempt := 0; ; attempt++ {
		took, err := connectOnce(addr, timeout)
		if !errors.Is(err, unix.EINTR) || attempt == eintrRetries {
			return took, err
		}
	}
}

// connectOnce is one timed connect on a fresh socket.
func connectOnce(addr netip.AddrPort, timeout time.Duration) (time.Duration, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return 0, fmt.Errorf("set connect timeout: %w", err)
	}
	if err := unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0}); err != nil {
		return 0, fmt.Errorf("set SO_LINGER: %w", err)
	}
	sa := &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	start := time.Now()
	err = unix.Connect(fd, sa)
	took := time.Since(start)
	if err != nil {
		return took, fmt.Errorf("connect %s: %w", addr, err)
	}
	return took, nil
}
