package podserver_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/svclab/svclab/lab/netns"
)

// getIn opens one connection from namespace ns to target and sends n HTTP
// GET requests over it, returning the bodies. The dial happens on the
// thread netns.Do switched into ns, so the socket lives there.
func getIn(ns string, target netip.AddrPort, n int) ([]string, error) {
	var bodies []string
	err := netns.Do(ns, func() error {
		conn, err := net.DialTimeout("tcp4", target.String(), 5*time.Second)
		if err != nil {
			return err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		for range n {
			if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", target); err != nil {
				return err
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			bodies = append(bodies, string(body))
		}
		return nil
	})
	return bodies, err
}

// connectIn opens and closes one plain TCP connection from ns to target.
func connectIn(ns string, target netip.AddrPort) error {
	return netns.Do(ns, func() error {
		conn, err := net.DialTimeout("tcp4", target.String(), 5*time.Second)
		if err != nil {
			return err
		}
		return conn.Close()
	})
}
