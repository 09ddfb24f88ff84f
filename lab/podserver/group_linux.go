package podserver

import (
	"errors"
	"net/netip"
	"sync"
)

// Group serves many pods and closes them together. The zero value is ready
// to use; it is safe for concurrent use.
type Group struct {
	mu      sync.Mutex
	servers []*Server
}

// Serve starts a server like the package-level Serve and adds it to the group.
func (g *Group) Serve(netnsName, podName string, addr netip.AddrPort) (*Server, error) {
	s, err := Serve(netnsName, podName, addr)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.servers = append(g.servers, s)
	g.mu.Unlock()
	return s, nil
}

// Servers returns the group's servers in the order they were started.
func (g *Group) Servers() []*Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*Server(nil), g.servers...)
}

// Stats returns the counts per pod name; a pod with several servers (ports)
// gets their sum.
func (g *Group) Stats() map[string]Stats {
	out := make(map[string]Stats)
	for _, s := range g.Servers() {
		st, sum := s.Stats(), out[s.Pod()]
		sum.Accepted += st.Accepted
		sum.Requests += st.Requests
		out[s.Pod()] = sum
	}
	return out
}

// Sources returns, per pod name, how many connections each source address
// made to it (summed over the pod's servers).
func (g *Group) Sources() map[string]map[netip.Addr]uint64 {
	out := make(map[string]map[netip.Addr]uint64)
	for _, s := range g.Servers() {
		m := out[s.Pod()]
		if m == nil {
			m = make(map[netip.Addr]uint64)
			out[s.Pod()] = m
		}
		for ip, n := range s.AcceptedBySource() {
			m[ip] += n
		}
	}
	return out
}

// Close closes every server in the group and forgets them; it returns all
// their errors joined.
func (g *Group) Close() error {
	g.mu.Lock()
	servers := g.servers
	g.servers = nil
	g.mu.Unlock()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
