package labfake

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/route"
)

// Connect simulates spec's connections: each lands on an endpoint the
// loaded rules send it to (traced, see paths_linux.go), chosen with the
// rules' probabilities, and is counted by the fake kernel and by the
// endpoint's pod server, which sees the source the rules leave it.
func (l *Lab) Connect(ctx context.Context, spec traffic.Spec, sink func(traffic.Record)) (traffic.Summary, error) {
	d := l.loaded()
	if d == nil {
		return traffic.Summary{}, fmt.Errorf("fake lab %s: no rules loaded", l.Spec.Prefix)
	}
	if spec.Connections <= 0 {
		return traffic.Summary{}, fmt.Errorf("connections = %d, want > 0", spec.Connections)
	}
	sum := traffic.Summary{}
	cost := time.Duration(d.costMicros(spec.Target) * float64(time.Microsecond))
	for i := 0; i < spec.Connections; i++ {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("fake traffic to %s: %w", spec.Target, err)
		}
		rec := traffic.Record{Seq: i, Connect: cost, Total: cost}
		ep, ok, err := l.pickFrom(d, spec.Target, spec.Source)
		if err != nil {
			return sum, err
		}
		if ok {
			l.deliver(d, ep.Addr, spec, ep.Seen)
			rec.Requests = max(spec.RequestsPerConn, 1)
			sum.Requests += rec.Requests
		} else {
			rec.Err = "connection refused"
			sum.Errors++
		}
		sum.Connections++
		if sink != nil {
			sink(rec)
		}
	}
	sum.Elapsed = time.Duration(spec.Connections) * cost
	sum.ConnPerSec = float64(sum.Connections-sum.Errors) / sum.Elapsed.Seconds()
	l.machine.addCPU(sum.Elapsed.Seconds())
	return sum, nil
}

// pickFrom chooses the endpoint a new connection from src (zero: the
// lab's client) to target reaches, with the probabilities of the rules;
// ok is false when the rules send it nowhere.
func (l *Lab) pickFrom(d *Dataplane, target netip.AddrPort, src netip.Addr) (route.Endpoint, bool, error) {
	a, err := d.route(l.query(target, src))
	if err != nil || a.Dropped {
		return route.Endpoint{}, false, err
	}
	l.mu.Lock()
	u := l.rng.Float64()
	l.mu.Unlock()
	return pickEndpoint(a.Endpoints, u), true, nil
}

// deliver counts one connection at the kernel and at the pod, which sees
// it come from seen.
func (l *Lab) deliver(d *Dataplane, ep netip.AddrPort, spec traffic.Spec, seen netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.counts[ep.String()]++
	pod := podName(ep.Addr())
	s, ok := l.served[pod]
	if !ok {
		return // a filler endpoint: the sink answers
	}
	s.Accepted++
	s.Requests += uint64(max(spec.RequestsPerConn, 1))
	if l.sources[pod] == nil {
		l.sources[pod] = map[netip.Addr]uint64{}
	}
	l.sources[pod][seen]++
}

// Probe simulates blocking connects: every latency is the fake cost of the
// target's lookup.
func (l *Lab) Probe(ctx context.Context, spec traffic.ProbeSpec) (traffic.ProbeResult, error) {
	d := l.loaded()
	if d == nil {
		return traffic.ProbeResult{}, fmt.Errorf("fake lab %s: no rules loaded", l.Spec.Prefix)
	}
	res := traffic.ProbeResult{}
	for i := 0; i < spec.Warmup+spec.Count; i++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		target := spec.Target(i)
		_, ok, err := l.pickFrom(d, target, netip.Addr{})
		if err != nil {
			return res, err
		}
		if !ok {
			res.Errors++
			continue
		}
		if i >= spec.Warmup {
			res.Latencies = append(res.Latencies, time.Duration(d.costMicros(target)*float64(time.Microsecond)))
		}
	}
	return res, nil
}
