package pktgen

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Offsets into an Ethernet/IPv4/TCP frame without IP or TCP options.
// gopacket pads the 54-byte SYN to Ethernet's 60-byte minimum.
const (
	ethLen         = 14
	ipv4Len        = 20
	frameLen       = 60
	tcpOffset      = ethLen + ipv4Len
	srcPortOffset  = tcpOffset
	seqOffset      = tcpOffset + 4
	checksumOffset = tcpOffset + 16
)

// synWindow is the window a SYN advertises, as Linux's default.
const synWindow = 64240

// link is the layer-2 path a frame takes: the client's MAC and the next
// hop's.
type link struct {
	src, dst net.HardwareAddr
}

// frameTemplate is a SYN to one target with source port and sequence
// number zero; stamp fills those in and patches the checksum.
type frameTemplate struct {
	frame []byte
	// partial is the folded one's-complement sum the TCP checksum covers
	// with source port and sequence zero: the complement of its checksum.
	partial uint16
}

// newFrameTemplate serializes the SYN from src to dst over l with gopacket.
func newFrameTemplate(l link, src netip.Addr, dst netip.AddrPort) (frameTemplate, error) {
	eth := &layers.Ethernet{SrcMAC: l.src, DstMAC: l.dst, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{
		Version: 4, TTL: 64, Flags: layers.IPv4DontFragment, Protocol: layers.IPProtocolTCP,
		SrcIP: src.AsSlice(), DstIP: dst.Addr().AsSlice(),
	}
	tcp := &layers.TCP{DstPort: layers.TCPPort(dst.Port()), SYN: true, Window: synWindow}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		return frameTemplate{}, fmt.Errorf("SYN template to %s: %w", dst, err)
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, tcp); err != nil {
		return frameTemplate{}, fmt.Errorf("serialize SYN template to %s: %w", dst, err)
	}
	frame := append([]byte(nil), buf.Bytes()...)
	if len(frame) != frameLen {
		return frameTemplate{}, fmt.Errorf("SYN template to %s is %d bytes, want %d", dst, len(frame), frameLen)
	}
	return frameTemplate{frame: frame, partial: ^binary.BigEndian.Uint16(frame[checksumOffset:])}, nil
}

// stamp writes the template into out (frameLen bytes) with the given source
// port and sequence number, and the checksum patched to match.
func (t *frameTemplate) stamp(out []byte, port uint16, seq uint32) {
	copy(out, t.frame)
	binary.BigEndian.PutUint16(out[srcPortOffset:], port)
	binary.BigEndian.PutUint32(out[seqOffset:], seq)
	sum := uint32(t.partial) + uint32(port) + seq>>16 + seq&0xffff
	binary.BigEndian.PutUint16(out[checksumOffset:], ^fold(sum))
}

// fold reduces a 32-bit sum of 16-bit words to a 16-bit one's-complement sum.
func fold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}
