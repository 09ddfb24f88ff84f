package verifytrace

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/svclab/svclab/lab/netns"
)

// sender is a raw IPv4 socket (IP_HDRINCL), or IPv6 (IPPROTO_RAW implies
// the header is ours), opened in one namespace, bound to a device if dev
// is not "".
type sender struct {
	fd   int
	ipv6 bool
}

func openSender(ns, dev string, ipv6 bool) (*sender, error) {
	s := &sender{fd: -1, ipv6: ipv6}
	err := netns.Do(ns, func() error {
		family := syscall.AF_INET
		if ipv6 {
			family = syscall.AF_INET6
		}
		fd, err := syscall.Socket(family, syscall.SOCK_RAW, syscall.IPPROTO_RAW)
		if err != nil {
			return err
		}
		s.fd = fd
		if dev != "" {
			if err := syscall.BindToDevice(fd, dev); err != nil {
				return err
			}
		}
		if ipv6 {
			return nil
		}
		return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_HDRINCL, 1)
	})
	if err != nil {
		if s.fd >= 0 {
			syscall.Close(s.fd)
		}
		return nil, fmt.Errorf("raw socket in netns %s: %w", ns, err)
	}
	return s, nil
}

// send sends one TCP SYN or UDP datagram with a wrong L4 checksum.
func (s *sender) send(p Packet) error {
	if err := syscall.SetsockoptInt(s.fd, syscall.SOL_SOCKET, syscall.SO_MARK, int(p.Mark)); err != nil {
		return fmt.Errorf("set the mark of %v: %w", p, err)
	}
	pkt := buildPacket(p)
	var dst syscall.Sockaddr
	if s.ipv6 {
		dst = &syscall.SockaddrInet6{Addr: p.Dst.As16()}
	} else {
		dst = &syscall.SockaddrInet4{Addr: p.Dst.As4()}
	}
	// EPERM: the node's OUTPUT dropped or rejected its own packet.
	if err := syscall.Sendto(s.fd, pkt, 0, dst); err != nil && err != syscall.EPERM {
		return fmt.Errorf("send %v: %w", p, err)
	}
	return nil
}

func (s *sender) close() { syscall.Close(s.fd) }

func buildPacket(p Packet) []byte {
	l4 := make([]byte, 8)
	proto := byte(17)
	if p.Proto == "tcp" {
		l4, proto = make([]byte, 20), 6
		l4[12] = 5 << 4
		l4[13] = 0x02 // SYN
		if p.TCPFlags != 0 {
			l4[13] = p.TCPFlags
		}
		binary.BigEndian.PutUint16(l4[14:], 65535)
		binary.BigEndian.PutUint32(l4[4:], 1)
	} else {
		binary.BigEndian.PutUint16(l4[4:], 8)
	}
	binary.BigEndian.PutUint16(l4[0:], p.SPort)
	binary.BigEndian.PutUint16(l4[2:], p.DPort)
	ck := 6 // the checksum field
	if proto == 6 {
		ck = 16
	}
	binary.BigEndian.PutUint16(l4[ck:], 0xdead) // deliberately wrong
	if p.Src.Is6() {
		return append(ipv6Header(p, proto, len(l4)), l4...)
	}
	ip := make([]byte, 20, 20+len(l4))
	ip[0], ip[8], ip[9] = 0x45, 64, proto
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(l4)))
	id := p.SPort
	if p.IPID != 0 {
		id = p.IPID
	}
	binary.BigEndian.PutUint16(ip[4:], id)
	src, dst := p.Src.As4(), p.Dst.As4()
	copy(ip[12:], src[:])
	copy(ip[16:], dst[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip))
	return append(ip, l4...)
}

// ipv6Header is a fixed IPv6 header; the flow label carries the packet's
// id, as the IPv4 id does (the source port unless IPID is set), which
// identifies it in nft monitor trace.
func ipv6Header(p Packet, proto byte, payload int) []byte {
	ip := make([]byte, 40, 40+payload)
	id := p.SPort
	if p.IPID != 0 {
		id = p.IPID
	}
	binary.BigEndian.PutUint32(ip[0:], 6<<28|uint32(id))
	binary.BigEndian.PutUint16(ip[4:], uint16(payload))
	ip[6], ip[7] = proto, 64
	src, dst := p.Src.As16(), p.Dst.As16()
	copy(ip[8:], src[:])
	copy(ip[24:], dst[:])
	return ip
}

func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// Packet is one packet verify-trace puts on the wire in the lab (TCP
// flags, IP id, the socket's mark): not the tracers' sim/trace.Packet,
// which tracerPacket and nftPacket derive from it with what the tracers
// are told of the topology (the interfaces).
type Packet struct {
	Src, Dst     netip.Addr
	Proto        string
	SPort, DPort uint16
	FromNode     bool   // sent by a host process in the node namespace
	InIface      string // the node interface a client packet comes in on
	Mark         uint32 // a node packet's mark (SO_MARK)
	TCPFlags     uint8  // 0: SYN
	IPID         uint16 // the IPv4 id or IPv6 flow label (0: SPort, which identifies the packet in nft monitor trace)
}

func (p Packet) String() string {
	from := "client"
	if p.FromNode {
		from = "node"
	}
	if !p.FromNode {
		from += " in on " + p.InIface
	}
	state := ""
	if p.TCPFlags == tcpACK {
		state = " (established)"
	}
	return fmt.Sprintf("%s %v:%d -> %v:%d from %s mark %#x%s", p.Proto, p.Src, p.SPort, p.Dst, p.DPort, from, p.Mark, state)
}
