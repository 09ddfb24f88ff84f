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
	// random one for a uniform position). It runs on the probe's thread.
	Target func(i int) netip.AddrPort
	// CPU, when set, pins the probe's thread to that CPU for the probe's
	// connects (and restores its affinity afterwards); nil leaves the
	// thread wherever the scheduler puts it.
	CPU *int
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
		if spec.CPU != nil {
			restore, err := pinThread(*spec.CPU)
			if err != nil {
				return fmt.Errorf("probe: %w", err)
			}
			defer restore()
		}
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

// pinThread pins the calling (locked) thread to cpu and returns what puts
// its previous affinity back.
func pinThread(cpu int) (restore func(), err error) {
	var before, only unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		return nil, fmt.Errorf("read the thread's CPU affinity: %w", err)
	}
	if cpu < 0 || !before.IsSet(cpu) {
		return nil, fmt.Errorf("pin to CPU %d: not one this thread may run on (%d CPUs allowed)", cpu, before.Count())
	}
	only.Set(cpu)
	if err := unix.SchedSetaffinity(0, &only); err != nil {
		return nil, fmt.Errorf("pin to CPU %d: %w", cpu, err)
	}
	return func() { _ = unix.SchedSetaffinity(0, &before) }, nil
}

// maxCPUs is the kernel's CPU_SETSIZE, the CPUs an affinity mask can name.
const maxCPUs = 1024

// AllowedCPUs lists the CPUs this process may run on, for a clear error
// before a run that pins its probes to another.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("read the CPU affinity: %w", err)
	}
	var cpus []int
	for cpu := 0; cpu < maxCPUs; cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	return cpus, nil
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
