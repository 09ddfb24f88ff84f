package objects

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// Shape is a cluster's shape as far as kube-proxy's rules go: how its
// services divide by type, policy, family and feature, and how many
// endpoints and ports they have. Counts are of services unless named
// otherwise; the distributions count services that kube-proxy proxies
// (neither headless nor ExternalName).
type Shape struct {
	Services, Headless, ExternalNameServices int
	Nodes                                    int
	LocalNode                                string
	Types                                    map[model.ServiceType]int
	Families                                 map[model.FamilyMix]int
	// Accessible counts externally accessible services (NodePort,
	// LoadBalancer, or with externalIPs); ExternalLocal those of them with
	// externalTrafficPolicy Local.
	Accessible, ExternalLocal, InternalLocal int
	Affinity, ExternalIPs, SourceRanges      int
	HealthCheckNodePorts, TrafficDistrib     int
	// EndpointsPerService maps an endpoint count (per family, the larger
	// of a dual-stack service's two) to how many services have it.
	EndpointsPerService map[int]int
	PortsPerService     map[int]int
	Protocols           map[model.Protocol]int // ports by protocol
	// Endpoint counts: all, not ready, terminating, with hints, and on
	// another node than LocalNode.
	Endpoints, NotReady, Terminating, Hinted, Remote int
}

// Shape summarises o's services as rendered for the node LocalNode(node).
func (o *Objects) Shape(node string) Shape {
	local := o.LocalNode(node).Name
	sh := Shape{Nodes: len(o.Nodes), LocalNode: local, Types: map[model.ServiceType]int{}, Families: map[model.FamilyMix]int{},
		EndpointsPerService: map[int]int{}, PortsPerService: map[int]int{}, Protocols: map[model.Protocol]int{}}
	for i := range o.Services {
		s := &o.Services[i]
		sh.Services++
		switch {
		case s.Type == model.ExternalName:
			sh.ExternalNameServices++
			continue
		case s.Skipped():
			sh.Headless++
			continue
		}
		sh.add(s, local)
	}
	return sh
}

func (sh *Shape) add(s *model.Service, local string) {
	sh.Types[s.Type]++
	fam := model.SingleIPv4
	switch {
	case s.SecondaryClusterIP.IsValid():
		fam = model.DualStack
	case model.FamilyOf(s.ClusterIP) == model.IPv6:
		fam = model.SingleIPv6
	}
	sh.Families[fam]++
	if s.Type != model.ClusterIP || len(s.ExternalIPs) > 0 {
		sh.Accessible++
		if s.ExternalPolicyLocal {
			sh.ExternalLocal++
		}
	}
	count := func(b bool, n *int) {
		if b {
			*n++
		}
	}
	count(s.InternalPolicyLocal, &sh.InternalLocal)
	count(s.Affinity.ClientIP, &sh.Affinity)
	count(len(s.ExternalIPs) > 0, &sh.ExternalIPs)
	count(len(s.LoadBalancerSourceRanges) > 0, &sh.SourceRanges)
	count(s.HealthCheckNodePort > 0, &sh.HealthCheckNodePorts)
	count(s.TrafficDistribution != "", &sh.TrafficDistrib)
	perFamily := map[model.Family]int{}
	for _, e := range s.Endpoints {
		perFamily[model.FamilyOf(e.IP)]++
		sh.Endpoints++
		count(!e.Ready, &sh.NotReady)
		count(e.Terminating, &sh.Terminating)
		count(len(e.ZoneHints)+len(e.NodeHints) > 0, &sh.Hinted)
		count(e.Node != local, &sh.Remote)
	}
	sh.EndpointsPerService[max(perFamily[model.IPv4], perFamily[model.IPv6])]++
	sh.PortsPerService[len(s.Ports)]++
	for _, p := range s.Ports {
		sh.Protocols[p.Protocol]++
	}
}

// Proxied is the number of services kube-proxy writes rules for.
func (sh Shape) Proxied() int { return sh.Services - sh.Headless - sh.ExternalNameServices }

// Mix returns the shape as a synthetic mix (see model.Mix).
func (sh Shape) Mix() *model.Mix {
	m := &model.Mix{}
	for _, t := range []model.ServiceType{model.ClusterIP, model.NodePort, model.LoadBalancer} {
		m.Types = append(m.Types, model.Weighted[model.ServiceType]{Value: t, Weight: float64(sh.Types[t])})
	}
	for _, f := range []model.FamilyMix{model.SingleIPv4, model.SingleIPv6, model.DualStack} {
		m.Families = append(m.Families, model.Weighted[model.FamilyMix]{Value: f, Weight: float64(sh.Families[f])})
	}
	m.Endpoints = weights(sh.EndpointsPerService)
	m.Ports = weights(sh.PortsPerService)
	n := float64(sh.Proxied())
	share := func(k int, of float64) float64 {
		if of == 0 {
			return 0
		}
		return float64(k) / of
	}
	m.ExternalLocal = share(sh.ExternalLocal, float64(sh.Accessible))
	m.InternalLocal = share(sh.InternalLocal, n)
	m.Affinity = share(sh.Affinity, n)
	m.ExternalIPs = share(sh.ExternalIPs, n)
	m.SourceRanges = share(sh.SourceRanges, float64(sh.Types[model.LoadBalancer]))
	m.RemoteEndpoints = share(sh.Remote, float64(sh.Endpoints))
	return m
}

func weights(m map[int]int) []model.Weighted[int] {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]model.Weighted[int], len(keys))
	for i, k := range keys {
		out[i] = model.Weighted[int]{Value: k, Weight: float64(m[k])}
	}
	return out
}

// WriteText prints the shape for people.
func (sh Shape) WriteText(w io.Writer) error {
	var b strings.Builder
	n := sh.Proxied()
	pct := func(k, of int) string {
		if of == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(of))
	}
	fmt.Fprintf(&b, "services      %d (%d proxied, %d headless, %d ExternalName); nodes %d; rendered for node %s\n",
		sh.Services, n, sh.Headless, sh.ExternalNameServices, sh.Nodes, sh.LocalNode)
	fmt.Fprintf(&b, "types         ClusterIP %d, NodePort %d, LoadBalancer %d\n", sh.Types[model.ClusterIP], sh.Types[model.NodePort], sh.Types[model.LoadBalancer])
	fmt.Fprintf(&b, "families      IPv4 %d, IPv6 %d, dual-stack %d\n", sh.Families[model.SingleIPv4], sh.Families[model.SingleIPv6], sh.Families[model.DualStack])
	fmt.Fprintf(&b, "policies      externalTrafficPolicy Local %d of %d externally accessible (%s); internalTrafficPolicy Local %d (%s)\n",
		sh.ExternalLocal, sh.Accessible, pct(sh.ExternalLocal, sh.Accessible), sh.InternalLocal, pct(sh.InternalLocal, n))
	fmt.Fprintf(&b, "features      ClientIP affinity %d, externalIPs %d, loadBalancerSourceRanges %d, healthCheckNodePort %d, trafficDistribution %d\n",
		sh.Affinity, sh.ExternalIPs, sh.SourceRanges, sh.HealthCheckNodePorts, sh.TrafficDistrib)
	fmt.Fprintf(&b, "ports         %s per service; protocols %s\n", distribution(sh.PortsPerService), protocolList(sh.Protocols))
	fmt.Fprintf(&b, "endpoints     %d (%d not ready, %d terminating, %d with topology hints, %d on other nodes)\n",
		sh.Endpoints, sh.NotReady, sh.Terminating, sh.Hinted, sh.Remote)
	fmt.Fprintf(&b, "per service   %s\n", distribution(sh.EndpointsPerService))
	fmt.Fprintf(&b, "              %s\n", percentiles(sh.EndpointsPerService))
	_, err := io.WriteString(w, b.String())
	return err
}

// distribution formats "count×services" pairs: "1: 40, 2: 30".
func distribution(m map[int]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, w := range weights(m) {
		parts = append(parts, fmt.Sprintf("%d: %d", w.Value, int(w.Weight)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// percentiles formats the median, p90, p99 and maximum of a distribution.
func percentiles(m map[int]int) string {
	ws := weights(m)
	total := 0
	for _, w := range ws {
		total += int(w.Weight)
	}
	if total == 0 {
		return ""
	}
	at := func(q float64) int {
		need, acc := q*float64(total), 0
		for _, w := range ws {
			acc += int(w.Weight)
			if float64(acc) >= need {
				return w.Value
			}
		}
		return ws[len(ws)-1].Value
	}
	return fmt.Sprintf("median %d, p90 %d, p99 %d, max %d", at(0.5), at(0.9), at(0.99), ws[len(ws)-1].Value)
}

func protocolList(m map[model.Protocol]int) string {
	s := map[string]int{}
	for k, v := range m {
		s[string(k)] = v
	}
	if len(s) == 0 {
		return "none"
	}
	return countList(s)
}
