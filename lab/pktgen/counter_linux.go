package pktgen

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// RxCounter returns a function that reads the rx_packets counter of link
// iface in namespace netnsName. It counts every packet, so at a pod it
// counts a flow's SYN and the client's RST alike; count flows with
// SynCounter.
func RxCounter(netnsName, iface string) (func() (uint64, error), error) {
	read := func() (uint64, error) {
		ns, err := netns.Open(netnsName)
		if err != nil {
			return 0, err
		}
		defer ns.Close()
		h, err := netlink.NewHandleAt(ns)
		if err != nil {
			return 0, fmt.Errorf("netlink handle for netns %s: %w", netnsName, err)
		}
		defer h.Close()
		l, err := h.LinkByName(iface)
		if err != nil {
			return 0, fmt.Errorf("find link %s in netns %s: %w", iface, netnsName, err)
		}
		if l.Attrs().Statistics == nil {
			return 0, fmt.Errorf("link %s in netns %s reports no statistics", iface, netnsName)
		}
		return l.Attrs().Statistics.RxPackets, nil
	}
	if _, err := read(); err != nil {
		return nil, err
	}
	return read, nil
}

// synCounterRcvbuf is the counting socket's receive buffer: the kernel's
// minimum, so it fills with the first few matches and every later one costs
// only the filter and a drop counter.
const synCounterRcvbuf = 1

// SynCounter counts the new flows arriving on one link: IPv4 TCP segments
// with SYN set and ACK clear, matched by a BPF filter on an AF_PACKET socket
// that never reads a packet (see the package doc). Close it when done.
type SynCounter struct {
	fd    int
	where string

	mu    sync.Mutex
	total uint64
}

// NewSynCounter opens a counter on link iface inside namespace netnsName.
func NewSynCounter(netnsName, iface string) (*SynCounter, error) {
	c := &SynCounter{fd: -1, where: fmt.Sprintf("link %s in netns %s", iface, netnsName)}
	err := netns.Do(netnsName, func() error { return c.open(iface) })
	if err != nil {
		if c.fd >= 0 {
			unix.Close(c.fd)
		}
		return nil, fmt.Errorf("SYN counter on %s: %w", c.where, err)
	}
	return c, nil
}

// open makes the socket on the current thread's namespace. It binds only
// after the filter is attached, so no unfiltered packet is ever counted.
func (c *SynCounter) open(iface string) error {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return err
	}
	if c.fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0); err != nil {
		return fmt.Errorf("open AF_PACKET socket: %w", err)
	}
	if err := attachSynFilter(c.fd); err != nil {
		return err
	}
	if err := unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, synCounterRcvbuf); err != nil {
		return fmt.Errorf("shrink receive buffer: %w", err)
	}
	addr := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: ifi.Index}
	if err := unix.Bind(c.fd, addr); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	_, err = c.Count() // the kernel's statistics reset on every read; start at zero
	c.total = 0
	return err
}

// Count returns the SYNs seen since the counter was opened.
func (c *SynCounter) Count() (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The kernel adds the drops to tp_packets before it answers, then
	// resets both.
	st, err := unix.GetsockoptTpacketStats(c.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
	if err != nil {
		return c.total, fmt.Errorf("read PACKET_STATISTICS on %s: %w", c.where, err)
	}
	c.total += uint64(st.Packets)
	return c.total, nil
}

// Close releases the socket.
func (c *SynCounter) Close() error {
	if err := unix.Close(c.fd); err != nil {
		return fmt.Errorf("close SYN counter on %s: %w", c.where, err)
	}
	return nil
}

// SumCounts returns a function that adds up the readings of counters, e.g.
// the Count methods of one SynCounter per pod.
func SumCounts(counters ...func() (uint64, error)) func() (uint64, error) {
	return func() (uint64, error) {
		var sum uint64
		var errs []error
		for _, count := range counters {
			n, err := count()
			sum += n
			errs = append(errs, err)
		}
		return sum, errors.Join(errs...)
	}
}
