package pktgen

import (
	"bytes"
	"net"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

var (
	testLink = link{
		src: net.HardwareAddr{0x02, 0, 0, 0, 0, 1},
		dst: net.HardwareAddr{0x02, 0, 0, 0, 0, 2},
	}
	testSrc = netip.MustParseAddr("10.244.255.1")
)

// TestStampMatchesGopacket checks that a stamped frame, checksum patched
// incrementally, is byte for byte the frame gopacket serializes from
// scratch with the same port and sequence number.
func TestStampMatchesGopacket(t *testing.T) {
	tests := []struct {
		dst  string
		port uint16
		seq  uint32
	}{
		{"10.96.0.10:80", 1024, 0},
		{"10.96.0.10:80", 65535, 0xffffffff},
		{"10.96.255.254:443", 40000, 2654435761},
		{"10.100.0.1:8080", 1, 1},
		{"10.96.0.10:80", 0xfffe, 0xfffe0001},
	}
	for _, tt := range tests {
		dst := netip.MustParseAddrPort(tt.dst)
		tmpl, err := newFrameTemplate(testLink, testSrc, dst)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, frameLen)
		tmpl.stamp(got, tt.port, tt.seq)
		if want := serializeSYN(t, dst, tt.port, tt.seq); !bytes.Equal(got, want) {
			t.Errorf("%s port %d seq %d:\n got %x\nwant %x", tt.dst, tt.port, tt.seq, got, want)
		}
		if !tcpChecksumValid(got[ethLen:]) {
			t.Errorf("%s port %d seq %d: checksum check fails on a good frame", tt.dst, tt.port, tt.seq)
		}
		got[seqOffset] ^= 0x40
		if tcpChecksumValid(got[ethLen:]) {
			t.Errorf("%s port %d seq %d: checksum check passes a corrupted frame", tt.dst, tt.port, tt.seq)
		}
	}
}

// serializeSYN builds the reference frame with gopacket.
func serializeSYN(t *testing.T, dst netip.AddrPort, port uint16, seq uint32) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: testLink.src, DstMAC: testLink.dst, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{
		Version: 4, TTL: 64, Flags: layers.IPv4DontFragment, Protocol: layers.IPProtocolTCP,
		SrcIP: testSrc.AsSlice(), DstIP: dst.Addr().AsSlice(),
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(port), DstPort: layers.TCPPort(dst.Port()), Seq: seq, SYN: true, Window: synWindow}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSynFilter runs the counter's BPF program on frames of every kind a
// pod's eth0 sees.
func TestSynFilter(t *testing.T) {
	vm, err := bpf.NewVM(synFilter)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		frame  []byte
		accept bool
	}{
		{"SYN", tcpFrame(t, func(c *layers.TCP) { c.SYN = true }, nil), true},
		{"SYN with IP options", tcpFrame(t, func(c *layers.TCP) { c.SYN = true }, func(ip *layers.IPv4) {
			ip.Options = []layers.IPv4Option{{OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 0}}
		}), true},
		{"SYN-ACK", tcpFrame(t, func(c *layers.TCP) { c.SYN, c.ACK = true, true }, nil), false},
		{"RST", tcpFrame(t, func(c *layers.TCP) { c.RST = true }, nil), false},
		{"ACK", tcpFrame(t, func(c *layers.TCP) { c.ACK = true }, nil), false},
		{"later fragment", tcpFrame(t, func(c *layers.TCP) { c.SYN = true }, func(ip *layers.IPv4) { ip.FragOffset = 100 }), false},
		{"UDP", udpFrame(t), false},
	}
	for _, tt := range tests {
		n, err := vm.Run(tt.frame)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (n > 0) != tt.accept {
			t.Errorf("%s: filter returned %d, want accept=%v", tt.name, n, tt.accept)
		}
	}
}

// tcpFrame serializes an IPv4 TCP frame shaped by the two functions.
func tcpFrame(t *testing.T, shapeTCP func(*layers.TCP), shapeIP func(*layers.IPv4)) []byte {
	t.Helper()
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IPv4(10, 0, 0, 1), DstIP: net.IPv4(10, 0, 0, 2)}
	tcp := &layers.TCP{SrcPort: 1234, DstPort: 80}
	shapeTCP(tcp)
	if shapeIP != nil {
		shapeIP(ip)
	}
	return serialize(t, ip, tcp)
}

// udpFrame serializes an IPv4 UDP frame whose byte at the TCP flags'
// offset has SYN set.
func udpFrame(t *testing.T) []byte {
	t.Helper()
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: net.IPv4(10, 0, 0, 1), DstIP: net.IPv4(10, 0, 0, 2)}
	return serialize(t, ip, &layers.UDP{SrcPort: 53, DstPort: 53}, gopacket.Payload{0, 0, 0, 0, 0, tcpFlagSYN})
}

func serialize(t *testing.T, ip *layers.IPv4, rest ...gopacket.SerializableLayer) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: testLink.src, DstMAC: testLink.dst, EthernetType: layers.EthernetTypeIPv4}
	var err error
	switch l4 := rest[0].(type) {
	case *layers.TCP:
		err = l4.SetNetworkLayerForChecksum(ip)
	case *layers.UDP:
		err = l4.SetNetworkLayerForChecksum(ip)
	}
	if err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	all := append([]gopacket.SerializableLayer{eth, ip}, rest...)
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, all...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
