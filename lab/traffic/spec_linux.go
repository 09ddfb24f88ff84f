package traffic

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Mode says what a connection does once it is established.
type Mode string

const (
	// ModeConnect opens a TCP connection and closes it at once: it measures
	// the connect latency only.
	ModeConnect Mode = "connect"
	// ModeHTTP opens a new connection per request: connect, GET /, read the
	// first body line (the pod's name), close.
	ModeHTTP Mode = "http"
	// ModeKeepAlive keeps one persistent HTTP/1.1 connection per worker and
	// sends RequestsPerConn requests over it before opening the next one.
	ModeKeepAlive Mode = "keepalive"
)

// DefaultTimeout bounds a dial and each request when Spec.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Spec describes one traffic run.
type Spec struct {
	// Netns is the namespace the connections start from; empty means the
	// caller's current namespace.
	Netns string `json:"netns,omitempty" yaml:"netns,omitempty"`
	// Target is the address every connection goes to.
	Target netip.AddrPort `json:"target" yaml:"target"`
	// Source is the local address every connection is bound to (e.g. one
	// of an external client's addresses); zero lets the kernel choose.
	Source netip.Addr `json:"source,omitempty" yaml:"source,omitempty"`
	// Connections is the number of connections to open in total.
	Connections int `json:"connections" yaml:"connections"`
	// Concurrency is the number of workers; 0 means 1. It is capped at
	// Connections.
	Concurrency int `json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
	// Rate is the number of new connections per second across all workers;
	// 0 means as fast as possible.
	Rate float64 `json:"rate,omitempty" yaml:"rate,omitempty"`
	// Mode is what each connection does.
	Mode Mode `json:"mode" yaml:"mode"`
	// RequestsPerConn is the number of requests per connection in
	// ModeKeepAlive; 0 means 1. Other modes ignore it.
	RequestsPerConn int `json:"requests_per_conn,omitempty" yaml:"requests_per_conn,omitempty"`
	// Timeout bounds the dial and each request on a connection; 0 means
	// DefaultTimeout.
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// withDefaults validates the spec and fills in its zero values.
func (s Spec) withDefaults() (Spec, error) {
	var errs []error
	if !s.Target.IsValid() || s.Target.Port() == 0 {
		errs = append(errs, fmt.Errorf("target %q needs an address and a port", s.Target))
	}
	if s.Source.IsValid() && s.Target.IsValid() && s.Source.Is4() != s.Target.Addr().Is4() {
		errs = append(errs, fmt.Errorf("source %s and target %s are of different families", s.Source, s.Target))
	}
	if s.Connections <= 0 {
		errs = append(errs, fmt.Errorf("connections = %d, want > 0", s.Connections))
	}
	if s.Concurrency < 0 || s.Rate < 0 || s.RequestsPerConn < 0 || s.Timeout < 0 {
		errs = append(errs, errors.New("concurrency, rate, requests_per_conn and timeout must not be negative"))
	}
	switch s.Mode {
	case ModeConnect, ModeHTTP, ModeKeepAlive:
	default:
		errs = append(errs, fmt.Errorf("mode %q, want %s, %s or %s", s.Mode, ModeConnect, ModeHTTP, ModeKeepAlive))
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("traffic spec: %w", errors.Join(errs...))
	}
	s.Concurrency = min(max(s.Concurrency, 1), s.Connections)
	s.RequestsPerConn = max(s.RequestsPerConn, 1)
	if s.Mode != ModeKeepAlive {
		s.RequestsPerConn = 1
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	return s, nil
}
