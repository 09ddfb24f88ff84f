package traffic

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
)

// The source ports the client hands out in turn, and the kernel's
// ephemeral range in the client's namespace (lab/topo writes it from these).
const (
	FirstSourcePort = 1024
	LastSourcePort  = 65535
)

// sourcePortTries bounds how many ports a dial skips because another
// socket holds them (a keep-alive connection, a probe) before it fails.
const sourcePortTries = 64

// nextSourcePort is the process's cursor over [FirstSourcePort,
// LastSourcePort]: every connection svclab's client opens, in any
// namespace, takes the next port.
var nextSourcePort atomic.Uint32

// takeSourcePort returns the next source port of the cycle.
func takeSourcePort() int {
	n := nextSourcePort.Add(1) - 1
	return FirstSourcePort + int(n%(LastSourcePort-FirstSourcePort+1))
}

// dialFromNextPort dials with each connection bound to the next source port
// of the cycle instead of one the kernel picks. The kernel's picker steps
// through the range by a small random stride (net/ipv4/inet_hashtables.c),
// so a client opening 10,000 short connections to one service reuses about
// 600 of its 4-tuples within seconds (measured on this kernel), while
// conntrack still holds the earlier connection in CLOSE for 10 s. Such a
// SYN nearly always makes conntrack drop the old entry and start a new
// one, but an existing entry is the only way a connection reaches a pod
// without passing a DNAT rule (it takes the old entry's NAT): once, CI
// counted 4,940 connections at a server against 4,939 at its DNAT rule.
// Taken in turn, a 4-tuple recurs only after 64,512 connections from the
// whole process.
func dialFromNextPort(ctx context.Context, d *net.Dialer, local net.IP, target string) (net.Conn, error) {
	var err error
	for range sourcePortTries {
		d.LocalAddr = &net.TCPAddr{IP: local, Port: takeSourcePort()}
		var c net.Conn
		if c, err = d.DialContext(ctx, "tcp", target); !errors.Is(err, syscall.EADDRINUSE) {
			return c, err
		}
	}
	return nil, err
}
