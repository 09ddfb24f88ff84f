package pktgen

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// batchSize is the most frames one sendmmsg call carries.
const batchSize = 64

// txSendBuffer is the client socket's send buffer; frames leave it as soon
// as the veth takes them, so it only has to hold one batch in flight.
const txSendBuffer = 4 << 20

// txSocket is an AF_PACKET socket that sends whole Ethernet frames out of
// one link of the namespace it was opened in. Its protocol is 0, so the
// kernel never queues received packets on it.
type txSocket struct {
	fd    int
	where string // "link eth0 in netns X", for errors
	addr  unix.RawSockaddrLinklayer
	iovs  [batchSize]unix.Iovec
	msgs  [batchSize]unix.Mmsghdr
}

// openTx opens the socket inside netnsName on the link with ifindex. The
// socket stays bound to that namespace after the thread leaves it.
func openTx(netnsName, iface string, ifindex int) (*txSocket, error) {
	s := &txSocket{fd: -1, where: fmt.Sprintf("link %s in netns %s", iface, netnsName)}
	err := netns.Do(netnsName, func() error {
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		s.fd = fd
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open AF_PACKET socket on %s: %w", s.where, err)
	}
	// Optional speed-ups: skip the qdisc layer, and leave room for a batch.
	_ = unix.SetsockoptInt(s.fd, unix.SOL_PACKET, unix.PACKET_QDISC_BYPASS, 1)
	_ = unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, txSendBuffer)
	s.addr = unix.RawSockaddrLinklayer{
		Family: unix.AF_PACKET, Protocol: htons(unix.ETH_P_IP), Ifindex: int32(ifindex), Halen: 6,
	}
	for i := range s.msgs {
		hdr := &s.msgs[i].Hdr
		hdr.Name = (*byte)(unsafe.Pointer(&s.addr))
		hdr.Namelen = unix.SizeofSockaddrLinklayer
		hdr.Iov = &s.iovs[i]
		hdr.SetIovlen(1)
	}
	return s, nil
}

// send hands frames to the kernel, as many per sendmmsg call as fit. It
// returns how many the socket accepted and how many the link refused with
// ENOBUFS (the peer's input backlog was full).
func (s *txSocket) send(frames [][]byte) (sent, refused int, err error) {
	for i, f := range frames {
		s.iovs[i].Base = &f[0]
		s.iovs[i].SetLen(len(f))
	}
	for done := 0; done < len(frames); {
		n, errno := s.sendmmsg(len(frames)-done, done)
		switch {
		case errno == 0:
			done += n
			sent += n
		case errno == unix.ENOBUFS:
			done++ // the first frame of the call was dropped; go on after it
			refused++
		case errno == unix.EINTR || errno == unix.EAGAIN:
		default:
			return sent, refused, fmt.Errorf("sendmmsg on %s: %w", s.where, errno)
		}
	}
	return sent, refused, nil
}

// sendmmsg sends count prepared messages starting at index first.
func (s *txSocket) sendmmsg(count, first int) (int, unix.Errno) {
	n, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(s.fd),
		uintptr(unsafe.Pointer(&s.msgs[first])), uintptr(count), 0, 0, 0)
	runtime.KeepAlive(s)
	return int(n), errno
}

// close releases the socket.
func (s *txSocket) close() error {
	if err := unix.Close(s.fd); err != nil {
		return fmt.Errorf("close AF_PACKET socket on %s: %w", s.where, err)
	}
	return nil
}

// htons returns the host-order value whose bytes in memory are v in
// network order, as sockaddr fields want it.
func htons(v uint16) uint16 {
	return binary.NativeEndian.Uint16(binary.BigEndian.AppendUint16(nil, v))
}
