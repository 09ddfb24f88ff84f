package migrateverify

import (
	"bufio"
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// clientNetns is the namespace a probe's connections start in.
func (l *lab) clientNetns(p migrate.Path) (string, error) {
	switch p.Client {
	case migrate.FromPod:
		return l.client, nil
	case migrate.FromNode:
		return l.node, nil
	case migrate.FromOutside, migrate.FromInside, migrate.FromDenied:
		return l.ext, nil
	case migrate.FromHairpin:
		if ns, ok := l.pods[p.Query.Src]; ok {
			return ns, nil
		}
	}
	return "", errNoLab
}

// send makes n connections of probe p, each with a fresh source port,
// and returns what the kernel did with each.
func (l *lab) send(p migrate.Path, n int, timeout time.Duration) ([]migrate.Observation, error) {
	ns, err := l.clientNetns(p)
	if err != nil {
		return nil, err
	}
	var out []migrate.Observation
	err = netns.Do(ns, func() error {
		for range n {
			out = append(out, connect(p.Query, timeout))
		}
		return nil
	})
	return out, err
}

// minIPv6Timeout is the least time an IPv6 connection is given: a TCP
// connect that REJECT answers with an ICMPv6 error fails only after its
// SYN's first retransmission here (1.02 s, where IPv4's fails at once;
// measured in two scratch namespaces with an nftables reject in forward).
const minIPv6Timeout = 1500 * time.Millisecond

// connect makes one connection (TCP) or exchange (UDP) to q.Dst from
// q.Src (when the path binds one) and reads the answer.
func connect(q route.Query, timeout time.Duration) migrate.Observation {
	if q.Dst.Addr().Unmap().Is6() {
		timeout = max(timeout, minIPv6Timeout)
	}
	d := net.Dialer{Timeout: timeout}
	network, udp := "tcp4", q.Proto == model.UDP
	if udp {
		network = "udp4"
	}
	if q.Dst.Addr().Unmap().Is6() {
		network = network[:3] + "6"
	}
	if q.Src.IsValid() {
		if udp {
			d.LocalAddr = &net.UDPAddr{IP: q.Src.AsSlice()}
		} else {
			d.LocalAddr = &net.TCPAddr{IP: q.Src.AsSlice()}
		}
	}
	conn, err := d.Dial(network, q.Dst.String())
	if err != nil {
		return failed(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if udp {
		if _, err := conn.Write([]byte("probe\n")); err != nil {
			return failed(err)
		}
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return failed(err)
	}
	id, src, err := parseAnswer(line)
	if err != nil {
		return migrate.Observation{Seen: "a garbled answer", Detail: err.Error()}
	}
	switch id {
	case idNode:
		return migrate.Observation{Seen: migrate.SeenUntouched, Detail: "the node's own server answered", Source: src}
	case idUpstream:
		return migrate.Observation{Seen: migrate.SeenUntouched, Detail: "routed on beyond the node: upstream answered", Source: src}
	}
	return migrate.Observation{Seen: migrate.SeenEndpoint, Endpoint: id, Source: src}
}

// failed names a connection's failure as the client saw it.
func failed(err error) migrate.Observation {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return migrate.Observation{Seen: migrate.SeenRefused}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return migrate.Observation{Seen: migrate.SeenUnreach, Detail: err.Error()}
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return migrate.Observation{Seen: migrate.SeenDenied}
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return migrate.Observation{Seen: migrate.SeenTimeout}
	}
	return migrate.Observation{Seen: "failed", Detail: err.Error()}
}
