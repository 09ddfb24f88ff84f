package podserver

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/svclab/svclab/lab/netns"
)

// listenIn opens a TCP listener for addr inside the named namespace (the
// current one when netnsName is empty). socket(2) runs on the locked thread
// that netns.Do switched into the namespace, so the listener stays there.
// Keep-alive probes are off: the lab opens many short connections.
func listenIn(netnsName string, addr netip.AddrPort) (net.Listener, error) {
	network := "tcp4"
	if addr.Addr().Is6() {
		network = "tcp6" // an explicit family keeps 0.0.0.0 from becoming dual-stack [::]
	}
	var ln net.Listener
	listen := func() error {
		var err error
		lc := net.ListenConfig{KeepAlive: -1}
		ln, err = lc.Listen(context.Background(), network, addr.String())
		return err
	}
	var err error
	if netnsName == "" {
		err = listen()
	} else {
		err = netns.Do(netnsName, listen)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s in netns %s: %w", addr, netnsName, err)
	}
	return ln, nil
}

// countingListener counts the connections it accepts, in total and per
// local address (the address the client reached, which differs from the
// listening address for a 0.0.0.0 sink that owns a whole range).
type countingListener struct {
	net.Listener
	accepted atomic.Uint64
	byLocal  sync.Map // netip.Addr -> *atomic.Uint64
	byRemote sync.Map // netip.Addr -> *atomic.Uint64: the source addresses seen
}

// Accept waits for the next connection and counts it.
func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	if tcp, ok := c.LocalAddr().(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(tcp.IP); ok {
			countIn(&l.byLocal, ip.Unmap())
		}
	}
	if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(tcp.IP); ok {
			countIn(&l.byRemote, ip.Unmap())
		}
	}
	return c, nil
}

func countIn(m *sync.Map, ip netip.Addr) {
	v, ok := m.Load(ip)
	if !ok {
		v, _ = m.LoadOrStore(ip, new(atomic.Uint64))
	}
	v.(*atomic.Uint64).Add(1)
}

// acceptedByLocal returns a snapshot of the per-local-address counts.
func (l *countingListener) acceptedByLocal() map[netip.Addr]uint64 { return snapshot(&l.byLocal) }

// acceptedByRemote returns a snapshot of the per-source-address counts.
func (l *countingListener) acceptedByRemote() map[netip.Addr]uint64 { return snapshot(&l.byRemote) }

func snapshot(m *sync.Map) map[netip.Addr]uint64 {
	out := make(map[netip.Addr]uint64)
	m.Range(func(k, v any) bool {
		out[k.(netip.Addr)] = v.(*atomic.Uint64).Load()
		return true
	})
	return out
}
