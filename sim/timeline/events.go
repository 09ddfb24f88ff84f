package timeline

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// scale removes a service's last endpoints (their pods are deleted) or
// adds new pods with new addresses.
func (b *builder) scale(i int, e scenario.Event) error {
	s := service(&b.cur, e.Service)
	if s == nil {
		return fmt.Errorf("timeline: event %d: no service %s", i, e.Service)
	}
	n := len(s.Endpoints)
	b.commit(i, fmt.Sprintf("scale %s from %d to %d", e.Service, n, e.Replicas), func(c *Change) {
		cs := service(c, e.Service)
		c.Service = e.Service
		for _, ep := range cs.Endpoints[min(e.Replicas, n):] {
			c.Removed, c.Deleted = append(c.Removed, ep.IP), append(c.Deleted, ep.IP)
		}
		cs.Endpoints = cs.Endpoints[:min(e.Replicas, n)]
		for range max(e.Replicas-n, 0) {
			ip := b.pods.next()
			cs.Endpoints = append(cs.Endpoints, readyEndpoint(ip, b.sc.Cluster().NodeName))
			c.Added = append(c.Added, ip)
		}
	})
	return nil
}

func readyEndpoint(ip netip.Addr, node string) model.Endpoint {
	return model.Endpoint{IP: ip, Ready: true, Serving: true, Node: node}
}

// roll replaces the service's endpoints (as they are when the update
// starts) one by one: every Interval a new ready pod is added and an old
// endpoint turns terminating but serving; Overlap later the old one is
// removed and its pod deleted.
func (b *builder) roll(i int, e scenario.Event) error {
	s := service(&b.cur, e.Service)
	if s == nil {
		return fmt.Errorf("timeline: event %d: no service %s", i, e.Service)
	}
	old := make([]netip.Addr, len(s.Endpoints))
	for k, ep := range s.Endpoints {
		old[k] = ep.IP
	}
	start := b.cur.At
	for k, ip := range old {
		at := start + time.Duration(k)*e.Interval
		b.schedule(at, func() error {
			b.commit(i, fmt.Sprintf("roll %s: pod %d of %d replaced, %s terminating", e.Service, k+1, len(old), ip), func(c *Change) {
				cs := service(c, e.Service)
				n := b.pods.next()
				setTerminating(cs, ip, true)
				cs.Endpoints = append(cs.Endpoints, readyEndpoint(n, b.sc.Cluster().NodeName))
				c.Service, c.Added = e.Service, []netip.Addr{n}
			})
			return nil
		})
		b.schedule(at+e.Overlap, func() error {
			b.commit(i, fmt.Sprintf("roll %s: %s gone", e.Service, ip), func(c *Change) {
				removeEndpoint(service(c, e.Service), ip)
				c.Service, c.Removed, c.Deleted = e.Service, []netip.Addr{ip}, []netip.Addr{ip}
			})
			return nil
		})
	}
	return nil
}

// setTerminating marks the endpoint ip terminating, still serving or not.
func setTerminating(s *model.Service, ip netip.Addr, serving bool) {
	for k := range s.Endpoints {
		if s.Endpoints[k].IP == ip {
			s.Endpoints[k].Ready, s.Endpoints[k].Serving, s.Endpoints[k].Terminating = false, serving, true
		}
	}
}

func removeEndpoint(s *model.Service, ip netip.Addr) {
	if s != nil {
		s.Endpoints = slices.DeleteFunc(s.Endpoints, func(e model.Endpoint) bool { return e.IP == ip })
	}
}

// storm creates or deletes Count synthetic services spread evenly over
// Over (the newest first when deleting); a named service is deleted at once.
func (b *builder) storm(i int, e scenario.Event) error {
	if e.Service != "" {
		b.commit(i, "delete service "+e.Service, func(c *Change) {
			s := service(c, e.Service)
			for _, ep := range s.Endpoints {
				c.Removed = append(c.Removed, ep.IP)
			}
			c.Service = e.Service
			c.Explicit = slices.DeleteFunc(c.Explicit, func(x model.Service) bool { return x.Namespace+"/"+x.Name == e.Service })
		})
		return nil
	}
	step, verb := 1, "create"
	if e.Kind == scenario.EventDeleteServices {
		step, verb = -1, "delete"
	}
	start := b.cur.At
	for k := range e.Count {
		at := start + time.Duration(int64(e.Over)*int64(k)/int64(e.Count))
		b.schedule(at, func() error {
			b.commit(i, fmt.Sprintf("%s service %d of %d", verb, k+1, e.Count), func(c *Change) {
				c.Synthetic += step
				if step > 0 {
					c.Created = 1
				}
			})
			return nil
		})
	}
	return nil
}

// change replaces a service's ports or session affinity.
func (b *builder) change(i int, e scenario.Event) error {
	b.commit(i, "change "+e.Service, func(c *Change) {
		s := service(c, e.Service)
		c.Service = e.Service
		if e.Ports != nil {
			s.Ports = slices.Clone(e.Ports)
		}
		switch e.SessionAffinity {
		case "ClientIP":
			s.Affinity = model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout}
		case "None":
			s.Affinity = model.Affinity{}
		}
	})
	return nil
}

// deletePod deletes the pod at once (its address stops answering) and
// turns its endpoints terminating, not serving; Grace later they are gone.
func (b *builder) deletePod(i int, e scenario.Event) error {
	b.commit(i, "delete pod "+e.IP.String(), func(c *Change) {
		c.Deleted = []netip.Addr{e.IP}
		for k := range c.Explicit {
			s := &c.Explicit[k]
			if c.Service == "" && slices.ContainsFunc(s.Endpoints, func(ep model.Endpoint) bool { return ep.IP == e.IP }) {
				c.Service = s.Namespace + "/" + s.Name
			}
			setTerminating(s, e.IP, false)
		}
		c.Removed = []netip.Addr{e.IP}
	})
	b.schedule(b.cur.At+e.Grace, func() error {
		b.commit(i, fmt.Sprintf("endpoint %s removed", e.IP), func(c *Change) {
			for k := range c.Explicit {
				removeEndpoint(&c.Explicit[k], e.IP)
			}
		})
		return nil
	})
	return nil
}
