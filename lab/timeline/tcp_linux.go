package timeline

import (
	"context"
	"net/netip"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/traffic"
	tl "github.com/svclab/svclab/sim/timeline"
)

// tcpStream opens new connections to target at rate per second for the
// window, each one request answered with the serving pod's name.
type tcpStream struct {
	ns      string
	source  netip.Addr
	target  netip.AddrPort
	rate    int
	timeout time.Duration
	g       int
}

// run streams until the window (or ctx) ends.
func (s tcpStream) run(ctx context.Context, env Env, window time.Duration, rec *recorder) error {
	spec := traffic.Spec{Netns: s.ns, Source: s.source, Target: s.target, Rate: float64(s.rate), Mode: traffic.ModeHTTP, Timeout: s.timeout,
		Connections: max(int(window.Seconds()*float64(s.rate)), 1),
		Concurrency: max(4, int(float64(s.rate)*s.timeout.Seconds()*2))}
	_, err := traffic.Run(ctx, spec, func(r traffic.Record) {
		rec.add(observe(r, s.g, env, rec))
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// observe turns a connection's record into an observation.
func observe(r traffic.Record, g int, env Env, rec *recorder) tl.Observation {
	o := tl.Observation{At: rec.since(r.Start), Traffic: g}
	switch {
	case r.Err == "":
		o.Kind, o.Endpoint = tl.Delivered, env.PodIP[r.Pod]
	case refused(r.Err):
		o.Kind = tl.Refused
	default:
		o.Kind = tl.TimedOut
	}
	return o
}

// refused says a connection error came from an RST or an ICMP error (the
// rules reject it) rather than from silence.
func refused(err string) bool {
	for _, s := range []string{"connection refused", "connection reset", "no route to host", "network is unreachable"} {
		if strings.Contains(err, s) {
			return true
		}
	}
	return false
}

// probeInterval and probeTimeout pace the probes of a created service.
const (
	probeInterval = 50 * time.Millisecond
	probeTimeout  = 200 * time.Millisecond
)

// probe connects to target every probeInterval until a connection is
// answered (recorded as a Delivered observation of change) or ctx ends.
func probe(ctx context.Context, ns string, target netip.AddrPort, change int, rec *recorder) {
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		spec := traffic.Spec{Netns: ns, Target: target, Connections: 1, Mode: traffic.ModeConnect, Timeout: probeTimeout}
		var ok *traffic.Record
		_, _ = traffic.Run(ctx, spec, func(r traffic.Record) {
			if r.Err == "" {
				ok = &r
			}
		})
		if ok != nil {
			rec.add(tl.Observation{At: rec.since(ok.Start), Traffic: tl.ProbeTraffic, Change: change, Kind: tl.Delivered})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
