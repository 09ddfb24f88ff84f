package ipvs

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// census is a first pass over the services: the members each set will
// hold (create lines, with maxelem, precede the members, and the iptables
// payload has rules only for non-empty sets), the load balancers the node
// may not reach (the iptables payload drops them in KUBE-IPVS-OUT-FILTER),
// and the node facts of the render.
type census struct {
	opts  Options
	node  node
	count [numSets]int
	// blocked are the KUBE-IPVS-OUT-FILTER entries in service order.
	blocked []entry
	// external are the external and load-balancer IPs bound to kube-ipvs0,
	// counted once each.
	external map[netip.Addr]bool
	// full: every count is exact; otherwise KUBE-LOOP-BACK stops counting
	// once it is non-empty (the iptables payload needs no more).
	full bool
}

// empty reports whether set id gets no member.
func (c *census) empty(id setID) bool { return c.count[id] == 0 }

// maxElem is the maxelem for set id: kube-proxy's 65536, raised to the next
// power of two when the set holds more (see the package doc).
func (c *census) maxElem(id setID) int {
	n := defaultMaxElem
	for n < c.count[id] {
		n *= 2
	}
	return n
}

// takeCensus validates opts and every service and walks them once.
func takeCensus(m *model.Model, opts Options, full bool) (*census, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	c := &census{opts: opts, node: newNode(m, opts), full: full}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if !programmed(s) {
			continue
		}
		if err := c.node.checkService(s); err != nil {
			return nil, err
		}
		c.node.walkService(s, c)
	}
	return c, nil
}

func (c *census) add(id setID, _ entry) { c.count[id]++ }

func (c *census) loopback(s *model.Service, p model.Port, _ string) {
	if c.full || c.count[setLoopBack] == 0 {
		c.count[setLoopBack] += localCount(s, p, c.node.name)
	}
}

func (c *census) bind(a netip.Addr, external bool) {
	if external {
		if c.external[a] {
			return
		}
		if c.external == nil {
			c.external = map[netip.Addr]bool{}
		}
		c.external[a] = true
	}
	c.count[setIPVSIPs]++
}

func (c *census) noNodeAccess(e entry) { c.blocked = append(c.blocked, e) }

// programmed reports whether kube-proxy programs anything for s: not an
// ExternalName service, a ClusterIP (headless services have none) and at
// least one port.
func programmed(s *model.Service) bool {
	return !s.Skipped() && len(s.Ports) > 0
}

// localCount counts port p's endpoints on the rendered node, ready or not
// (the KUBE-LOOP-BACK members).
func localCount(s *model.Service, p model.Port, node string) int {
	if p.Unresolved {
		return 0
	}
	if s.EndpointCount() == len(s.Endpoints) { // no duplicate address
		n := 0
		for i := range s.Endpoints {
			if s.Endpoints[i].IsLocal(node) {
				n++
			}
		}
		return n
	}
	return len(localEndpoints(s, p, node))
}

// localEndpoints returns the addresses of port p's endpoints on node,
// ready or not, one per address: in model order, or kube-proxy's sorted
// order when addresses repeat (its EndpointSliceCache decides which copy
// counts).
func localEndpoints(s *model.Service, p model.Port, node string) []netip.Addr {
	out := make([]netip.Addr, 0, len(s.Endpoints))
	if p.Unresolved {
		return out
	}
	if s.EndpointCount() == len(s.Endpoints) {
		for i := range s.Endpoints {
			if s.Endpoints[i].IsLocal(node) {
				out = append(out, s.Endpoints[i].IP)
			}
		}
		return out
	}
	for _, e := range s.PortEndpoints(p) {
		if e.IsLocal(node) {
			out = append(out, e.IP)
		}
	}
	return out
}
