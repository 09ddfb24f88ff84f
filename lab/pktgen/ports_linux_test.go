package pktgen

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// TestBlastUsesDistinctSourcePorts captures the SYNs arriving at the pod
// and checks that each came from its own source port inside the range,
// with a valid TCP checksum after the node's DNAT.
func TestBlastUsesDistinctSourcePorts(t *testing.T) {
	f := newLabFixture(t, 1)
	capture := newSynCapture(t, f.topo.Pods[0].Netns)
	const packets = 3000
	spec := f.blastSpec(packets)
	spec.Rate = 50000
	if _, err := Blast(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	frames := capture.drain(t)
	if len(frames) != packets {
		t.Fatalf("captured %d SYNs, want %d", len(frames), packets)
	}
	seen := map[uint16]bool{}
	for _, frame := range frames {
		ihl := int(frame[ethLen]&0x0f) * 4
		port := binary.BigEndian.Uint16(frame[ethLen+ihl:])
		if seen[port] || port < DefaultSrcPorts.First {
			t.Fatalf("source port %d repeated or out of range", port)
		}
		seen[port] = true
		if !tcpChecksumValid(frame[ethLen:]) {
			t.Fatalf("SYN from port %d has a bad TCP checksum: %x", port, frame)
		}
	}
}

// synCapture is an AF_PACKET socket that keeps the SYNs arriving on a
// pod's eth0 for the test to read.
type synCapture struct{ fd int }

func newSynCapture(t *testing.T, ns string) *synCapture {
	t.Helper()
	c := &synCapture{fd: -1}
	err := netns.Do(ns, func() error {
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		c.fd = fd
		if err := attachSynFilter(fd); err != nil {
			return err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 32<<20); err != nil {
			return err
		}
		tv := unix.Timeval{Usec: 200000}
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return err
		}
		ifi, err := net.InterfaceByName("eth0")
		if err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: ifi.Index})
	})
	t.Cleanup(func() {
		if c.fd >= 0 {
			unix.Close(c.fd)
		}
	})
	if err != nil {
		t.Fatalf("capture in netns %s: %v", ns, err)
	}
	return c
}

// drain reads frames until none arrives for the receive timeout.
func (c *synCapture) drain(t *testing.T) [][]byte {
	t.Helper()
	var frames [][]byte
	buf := make([]byte, 2048)
	for {
		n, _, err := unix.Recvfrom(c.fd, buf, 0)
		if errors.Is(err, unix.EAGAIN) {
			return frames
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, append([]byte(nil), buf[:n]...))
	}
}

// tcpChecksumValid checks the TCP checksum of an IPv4 packet: the one's
// complement sum over the pseudo-header and the segment must be all ones.
func tcpChecksumValid(packet []byte) bool {
	ihl := int(packet[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(packet[2:]))
	segment := packet[ihl:total]
	sum := uint32(unix.IPPROTO_TCP) + uint32(len(segment))
	for _, words := range [][]byte{packet[12:20], segment} {
		for i := 0; i+1 < len(words); i += 2 {
			sum += uint32(binary.BigEndian.Uint16(words[i:]))
		}
		if len(words)%2 == 1 {
			sum += uint32(words[len(words)-1]) << 8
		}
	}
	return fold(sum) == 0xffff
}
