package podserver

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Stats counts what a server has seen since it started.
type Stats struct {
	// Accepted is the number of TCP connections accepted.
	Accepted uint64 `json:"accepted"`
	// Requests is the number of HTTP requests answered.
	Requests uint64 `json:"requests"`
}

// Server is one pod's listener, answering TCP connects and HTTP requests.
type Server struct {
	pod, netns string
	addr       netip.AddrPort
	listener   *countingListener
	http       *http.Server
	requests   atomic.Uint64

	done      chan struct{} // closed when the serve loop returns
	serveErr  error         // set before done is closed
	closeOnce sync.Once
	closeErr  error
}

// Serve opens a listener on addr inside the named network namespace (the
// current one when netnsName is empty) and serves it in the background for
// the pod podName. addr may be 0.0.0.0:PORT, e.g. for a sink pod that owns a
// whole range through a local route, and port 0 picks a free port (see Addr).
func Serve(netnsName, podName string, addr netip.AddrPort) (*Server, error) {
	ln, err := listenIn(netnsName, addr)
	if err != nil {
		return nil, fmt.Errorf("serve pod %s: %w", podName, err)
	}
	s := &Server{
		pod:      podName,
		netns:    netnsName,
		addr:     boundAddr(ln, addr),
		listener: &countingListener{Listener: ln},
		done:     make(chan struct{}),
	}
	s.http = &http.Server{
		Handler:           podHandler(podName, &s.requests),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		// Clients reset their connections on purpose (SO_LINGER 0); don't log it.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go s.serve()
	return s, nil
}

// boundAddr returns the address the listener really got (port 0 resolved).
func boundAddr(ln net.Listener, asked netip.AddrPort) netip.AddrPort {
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		return netip.AddrPortFrom(asked.Addr(), uint16(tcp.Port))
	}
	return asked
}

func (s *Server) serve() {
	err := s.http.Serve(s.listener)
	if !errors.Is(err, http.ErrServerClosed) {
		s.serveErr = fmt.Errorf("serve pod %s on %s in netns %s: %w", s.pod, s.addr, s.netns, err)
	}
	close(s.done)
}

// Pod returns the pod name the server answers with.
func (s *Server) Pod() string { return s.pod }

// Netns returns the namespace the listener lives in ("" for the current one).
func (s *Server) Netns() string { return s.netns }

// Addr returns the listening address, with the port actually bound.
func (s *Server) Addr() netip.AddrPort { return s.addr }

// Stats returns the counts so far; it is safe to call at any time.
func (s *Server) Stats() Stats {
	return Stats{Accepted: s.listener.accepted.Load(), Requests: s.requests.Load()}
}

// AcceptedByLocalAddr returns how many connections were accepted per local
// address the clients reached; for a 0.0.0.0 sink this shows which endpoint
// addresses received traffic.
func (s *Server) AcceptedByLocalAddr() map[netip.Addr]uint64 {
	return s.listener.acceptedByLocal()
}

// AcceptedBySource returns how many connections were accepted per source
// address: the client's own address when nothing rewrote it, the node's
// when the node masqueraded (the reply body's "remote" line says the same
// per request).
func (s *Server) AcceptedBySource() map[netip.Addr]uint64 {
	return s.listener.acceptedByRemote()
}

// Close stops accepting, closes every open connection and waits for the
// serve loop to end. It returns the serve loop's error, if it failed
// before Close. Calling Close again returns the same result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		err := s.http.Close()
		<-s.done
		if err != nil {
			err = fmt.Errorf("close pod %s on %s in netns %s: %w", s.pod, s.addr, s.netns, err)
		}
		s.closeErr = errors.Join(s.serveErr, err)
	})
	return s.closeErr
}
