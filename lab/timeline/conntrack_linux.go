package timeline

import (
	"bufio"
	"bytes"
	"context"
	"net/netip"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/results"
)

// conntrackTarget is a Service address whose entries are counted.
type conntrackTarget struct {
	service string // e.g. "default/statsd:8125/UDP"
	addr    netip.Addr
	proto   string // "tcp" or "udp"
}

// sampleConntrack lists the node's conntrack entries to each target every
// second until ctx ends, counting those whose reply comes from a deleted
// pod (deleted says which are, at a time in the window).
func sampleConntrack(ctx context.Context, node string, targets []conntrackTarget, deleted func(netip.Addr, time.Duration) bool, rec *recorder) []results.ConntrackSample {
	var out []results.ConntrackSample
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out
		case now := <-tick.C:
			at := rec.since(now)
			for _, t := range targets {
				raw, err := netns.Output(node, nil, "conntrack", "-L", "-p", t.proto, "--orig-dst", t.addr.String())
				if err != nil {
					continue // counted as no sample: the table could not be read this second
				}
				s := results.ConntrackSample{AtS: at.Seconds(), Service: t.service}
				for _, reply := range replySources(raw) {
					s.Entries++
					if deleted(reply, at) {
						s.ToDelete++
					}
				}
				out = append(out, s)
			}
		}
	}
}

// replySources reads each entry's reply source (the endpoint that answers,
// after DNAT) from conntrack -L's output: the second src= of a line.
func replySources(raw []byte) []netip.Addr {
	var out []netip.Addr
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		n := 0
		for _, f := range strings.Fields(sc.Text()) {
			v, ok := strings.CutPrefix(f, "src=")
			if !ok {
				continue
			}
			if n++; n == 2 {
				if ip, err := netip.ParseAddr(v); err == nil {
					out = append(out, ip)
				}
			}
		}
	}
	return out
}
