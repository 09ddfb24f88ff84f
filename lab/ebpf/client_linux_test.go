package ebpf

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// getPod makes one HTTP GET from ns to target, from local port localPort
// (0: any), and returns the first body line (the pod's name). The
// connection is closed with an RST, as the lab's clients close.
func getPod(ns string, target netip.AddrPort, localPort int, timeout time.Duration) (string, error) {
	var pod string
	err := netns.Do(ns, func() error {
		d := net.Dialer{Timeout: timeout, KeepAlive: -1, Control: reuseAddr}
		if localPort != 0 {
			d.LocalAddr = &net.TCPAddr{Port: localPort}
		}
		c, err := d.Dial("tcp4", target.String())
		if err != nil {
			return err
		}
		tcp := c.(*net.TCPConn)
		defer func() { _ = tcp.SetLinger(0); _ = tcp.Close() }()
		_ = tcp.SetDeadline(time.Now().Add(timeout))
		if _, err := fmt.Fprintf(tcp, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(tcp), nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		pod = strings.TrimSpace(line)
		return err
	})
	return pod, err
}

// reuseAddr lets a test bind a client port again at once.
func reuseAddr(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1) })
	if err != nil {
		return err
	}
	return serr
}

// udpEcho answers every datagram on addr inside ns with the pod's name,
// until the returned stop is called; it counts the datagrams it answered.
type udpEcho struct {
	conn  *net.UDPConn
	count chan int
}

func serveUDP(ns, pod string, addr netip.AddrPort) (*udpEcho, error) {
	var conn *net.UDPConn
	err := netns.Do(ns, func() error {
		var err error
		conn, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(addr))
		return err
	})
	if err != nil {
		return nil, err
	}
	e := &udpEcho{conn: conn, count: make(chan int, 1)}
	go func() {
		n := 0
		buf := make([]byte, 1500)
		for {
			_, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				e.count <- n
				return
			}
			n++
			_, _ = conn.WriteToUDPAddrPort([]byte(pod), from)
		}
	}()
	return e, nil
}

// stop closes the socket and returns how many datagrams it answered.
func (e *udpEcho) stop() int {
	_ = e.conn.Close()
	return <-e.count
}

// askUDP sends one datagram from a connected UDP socket in ns and returns
// the answer, from local port localPort (0: any); a rejected service gives
// ECONNREFUSED.
func askUDP(ns string, target netip.AddrPort, localPort int, timeout time.Duration) (string, error) {
	var answer string
	err := netns.Do(ns, func() error {
		d := net.Dialer{Timeout: timeout, Control: reuseAddr}
		if localPort != 0 {
			d.LocalAddr = &net.UDPAddr{Port: localPort}
		}
		c, err := d.Dial("udp4", target.String())
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.Write([]byte("who")); err != nil {
			return err
		}
		buf := make([]byte, 256)
		n, err := c.Read(buf)
		answer = string(buf[:n])
		return err
	})
	return answer, err
}
