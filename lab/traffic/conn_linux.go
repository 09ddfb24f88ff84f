package traffic

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// maxBody caps how much of a response body is read.
const maxBody = 64 << 10

// expired is a deadline in the past, used to wake blocked reads on cancel.
var expired = time.Unix(1, 0)

// conn opens and runs connections for one worker. It is used only from the
// worker's own goroutine, so it keeps a reusable read buffer.
type conn struct {
	spec    *Spec
	target  string
	dialer  net.Dialer
	local   net.IP // the bound source address; nil lets the kernel choose
	request []byte
	reader  *bufio.Reader
}

func newConn(spec *Spec) *conn {
	c := &conn{
		spec:   spec,
		target: spec.Target.String(),
		// KeepAlive < 0: no TCP keep-alive probes on these short connections.
		dialer:  net.Dialer{Timeout: spec.Timeout, KeepAlive: -1},
		request: fmt.Appendf(nil, "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: svclab\r\n\r\n", spec.Target),
		reader:  bufio.NewReaderSize(nil, 4096),
	}
	if spec.Source.IsValid() {
		c.local = spec.Source.AsSlice()
	}
	return c
}

// run opens connection seq, does what the mode asks and closes it. It
// must be called on the worker's thread so the socket is born in its netns.
func (c *conn) run(ctx context.Context, seq int) Record {
	rec := Record{Seq: seq, Start: time.Now()}
	nc, err := dialFromNextPort(ctx, &c.dialer, c.local, c.target)
	rec.Connect = time.Since(rec.Start) // connect(2) completes on the SYN-ACK
	if err != nil {
		rec.Total, rec.Err = rec.Connect, err.Error()
		return rec
	}
	tcp := nc.(*net.TCPConn)
	err = c.exchange(ctx, tcp, &rec)
	if closeErr := closeWithReset(tcp); err == nil && closeErr != nil {
		err = fmt.Errorf("close connection to %s: %w", c.target, closeErr)
	}
	rec.Total = time.Since(rec.Start)
	if err != nil {
		rec.Err = err.Error()
	}
	return rec
}

// closeWithReset closes conn with SO_LINGER 0: the kernel sends an RST and
// frees the socket at once instead of keeping it in TIME_WAIT for 60 s.
// Otherwise a client opening 20k+ short connections to one target would use
// up its ~28k ephemeral ports (net.ipv4.ip_local_port_range) and stall. The
// server side gets the RST too, so it keeps no TIME_WAIT socket either.
func closeWithReset(conn *net.TCPConn) error {
	lingerErr := conn.SetLinger(0)
	if err := conn.Close(); err != nil {
		return err
	}
	return lingerErr
}

// exchange sends the mode's HTTP requests over conn and fills rec.Pod and
// rec.Requests. ModeConnect sends nothing.
func (c *conn) exchange(ctx context.Context, conn *net.TCPConn, rec *Record) error {
	if c.spec.Mode == ModeConnect {
		return nil
	}
	// A cancelled ctx wakes a blocked read at once instead of after Timeout.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(expired) })
	defer stop()
	c.reader.Reset(conn)
	for range c.spec.RequestsPerConn {
		if err := conn.SetDeadline(time.Now().Add(c.spec.Timeout)); err != nil {
			return err
		}
		pod, err := c.get(conn)
		if err != nil {
			return fmt.Errorf("GET / request %d on %s: %w", rec.Requests+1, c.target, err)
		}
		if rec.Pod == "" {
			rec.Pod = pod
		} else if pod != rec.Pod {
			return fmt.Errorf("pod changed from %s to %s on one connection to %s", rec.Pod, pod, c.target)
		}
		rec.Requests++
	}
	return nil
}

// get sends one GET / and returns the first line of the response body, the
// pod's name. It reads the response itself instead of using http.Client:
// http.Transport dials from its own goroutines, which would not be in the
// worker's namespace.
func (c *conn) get(conn net.Conn) (string, error) {
	if _, err := conn.Write(c.request); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(c.reader, nil)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		return "", fmt.Errorf("read body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %s", resp.Status)
	}
	pod, _, _ := bytes.Cut(body, []byte("\n"))
	if len(pod) == 0 {
		return "", fmt.Errorf("response body names no pod")
	}
	return string(pod), nil
}
