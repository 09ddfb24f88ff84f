package timeline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/netns"
	tl "github.com/svclab/svclab/sim/timeline"
)

// udpSinks receive datagrams on a port in every pod: each arrival is a
// Delivered observation of the generator that sends to that port.
type udpSinks struct {
	conns []*net.UDPConn
	wg    sync.WaitGroup
}

// listenUDP opens a socket on port in each pod namespace and records what
// arrives for generator g.
func (s *udpSinks) listen(env Env, port, g int, rec *recorder) error {
	for ip, ns := range env.PodNetns {
		var conn *net.UDPConn
		err := netns.Do(ns, func() error {
			var err error
			conn, err = net.ListenUDP("udp", &net.UDPAddr{Port: port})
			return err
		})
		if err != nil {
			return fmt.Errorf("udp sink in pod %s port %d: %w", ns, port, err)
		}
		s.conns = append(s.conns, conn)
		s.wg.Go(func() { receive(conn, ip, g, rec) })
	}
	return nil
}

func receive(conn *net.UDPConn, ip netip.Addr, g int, rec *recorder) {
	buf := make([]byte, 2048)
	for {
		if _, _, err := conn.ReadFromUDPAddrPort(buf); err != nil {
			return // closed
		}
		rec.add(tl.Observation{At: rec.since(time.Now()), Traffic: g, Kind: tl.Delivered, Endpoint: ip})
	}
}

// close stops every sink.
func (s *udpSinks) close() {
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.wg.Wait()
}

// udpSender is one socket from a fixed source port to target, connected
// so that an ICMP error comes back as a refused send.
type udpSender struct {
	conn *net.UDPConn
	rate int
	g    int
}

func dialUDP(ns string, src netip.Addr, srcPort int, target netip.AddrPort) (*net.UDPConn, error) {
	var conn *net.UDPConn
	err := netns.Do(ns, func() error {
		var err error
		conn, err = net.DialUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(src, uint16(srcPort))), net.UDPAddrFromAddrPort(target))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("udp sender in %s from port %d to %s: %w", ns, srcPort, target, err)
	}
	return conn, nil
}

// senderTick is how often a sender catches up with its rate (a ticker
// at 1/rate would miss ticks above a few hundred per second).
const senderTick = 5 * time.Millisecond

// run sends rate datagrams a second until ctx ends.
func (s *udpSender) run(ctx context.Context, rec *recorder) {
	tick := time.NewTicker(senderTick)
	defer tick.Stop()
	payload := []byte("svclab.timeline:1|c")
	start, sent := time.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for due := int(now.Sub(start).Seconds() * float64(s.rate)); sent < due; sent++ {
				kind := tl.Sent
				if _, err := s.conn.Write(payload); errors.Is(err, syscall.ECONNREFUSED) {
					kind = tl.Refused
				}
				rec.add(tl.Observation{At: rec.since(now), Traffic: s.g, Kind: kind})
			}
		}
	}
}
