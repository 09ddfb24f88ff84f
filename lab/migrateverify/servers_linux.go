package migrateverify

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
)

// The identities the node's and upstream's servers answer with; an
// endpoint pod answers with its IP:port.
const (
	idNode     = "node"
	idUpstream = "upstream"
)

// startServers starts every server of the lab: each endpoint pod on its
// target ports, the node and upstream on every probed port.
func (l *lab) startServers(pl labPlan) error {
	for a, ns := range l.pods {
		for _, p := range pl.pods[a] {
			id := netip.AddrPortFrom(a, uint16(p.port)).String()
			if err := l.serve(ns, id, p); err != nil {
				return err
			}
		}
	}
	for _, p := range pl.ports {
		if err := l.serve(l.node, idNode, p); err != nil {
			return err
		}
		if err := l.serve(l.up, idUpstream, p); err != nil {
			return err
		}
	}
	return nil
}

// serve listens on p in namespace ns (the sockets stay in ns), on IPv4
// and IPv6, and answers every connection or datagram with "ID SOURCE".
func (l *lab) serve(ns, id string, p listen) error {
	for _, fam := range []string{"4", "6"} {
		if err := l.serveFamily(ns, id, p, fam); err != nil {
			return err
		}
	}
	return nil
}

// serveFamily is serve on one family ("4" or "6").
func (l *lab) serveFamily(ns, id string, p listen, fam string) error {
	var c io.Closer
	err := netns.Do(ns, func() error {
		addr := fmt.Sprintf(":%d", p.port)
		if p.proto == model.UDP {
			pc, err := net.ListenPacket("udp"+fam, addr)
			if err == nil {
				c = pc
				go answerUDP(pc, id)
			}
			return err
		}
		ln, err := net.Listen("tcp"+fam, addr)
		if err == nil {
			c = ln
			go answerTCP(ln, id)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate --verify: serve %s/%d (IPv%s) in %s: %w", p.proto, p.port, fam, ns, err)
	}
	l.servers = append(l.servers, c)
	return nil
}

func answerTCP(ln net.Listener, id string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
			_, _ = fmt.Fprintf(conn, "%s %s\n", id, remoteIP(conn.RemoteAddr()))
		}()
	}
}

func answerUDP(pc net.PacketConn, id string) {
	buf := make([]byte, 512)
	for {
		_, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		_, _ = pc.WriteTo([]byte(id+" "+remoteIP(from)+"\n"), from)
	}
}

func remoteIP(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	return ap.Addr().Unmap().String()
}

// parseAnswer reads a server's "ID SOURCE" line.
func parseAnswer(line string) (id string, src netip.Addr, err error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return "", netip.Addr{}, fmt.Errorf("answer %q: want ID SOURCE", line)
	}
	src, err = netip.ParseAddr(f[1])
	return f[0], src, err
}
