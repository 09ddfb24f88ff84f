package apicheck

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// Set holds what must be unique across the services of a cluster: their
// clusterIPs and node ports, each with the label of the service that has
// it ("services[3]", "Service demo/web").
type Set struct {
	clusterIPs map[netip.Addr]string
	nodePorts  map[int]string
}

// NewSet returns an empty Set.
func NewSet() *Set {
	return &Set{clusterIPs: map[netip.Addr]string{}, nodePorts: map[int]string{}}
}

// Add records s's clusterIPs and node ports under label and reports those
// another service already has.
func (c *Set) Add(label string, s *model.Service) []Problem {
	var out []Problem
	for i, ip := range clusterIPs(s) {
		if other, dup := c.clusterIPs[ip]; dup {
			out = append(out, Problem{AtClusterIP, i, fmt.Sprintf("clusterIP %s is also used by %s", ip, other), "each service needs its own clusterIP"})
			continue
		}
		c.clusterIPs[ip] = label
	}
	mine := map[int]bool{}
	for j, p := range s.Ports {
		if p.NodePort == 0 || mine[p.NodePort] {
			continue // a service may use one node port for TCP and UDP
		}
		if other, dup := c.nodePorts[p.NodePort]; dup {
			out = append(out, Problem{AtNodePort, j, fmt.Sprintf("nodePort %d is also used by %s", p.NodePort, other), "each node port belongs to one service"})
			continue
		}
		c.nodePorts[p.NodePort] = label
		mine[p.NodePort] = true
	}
	return out
}
