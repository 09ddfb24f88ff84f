package migrateverify

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
)

// listen is one port a lab server listens on.
type listen struct {
	proto model.Protocol
	port  int
}

// labPlan is what one lab holds for a set of probes: the node's
// addresses, the endpoint pods and their ports, the client pod's
// addresses (one per family), the
// external client's addresses, the destinations upstream owns and the
// ports the node and upstream serve.
type labPlan struct {
	node     []netip.Addr
	pods     map[netip.Addr][]listen
	client   []netip.Addr
	external []netip.Addr
	upstream []netip.Addr
	ports    []listen
}

// unsupported says why the lab does not send p ("" when it does).
func unsupported(p migrate.Probe) string {
	switch {
	case p.Path.Query.Proto != model.TCP && p.Path.Query.Proto != model.UDP && p.Path.Query.Proto != "":
		return fmt.Sprintf("the lab does not probe %s", p.Path.Query.Proto)
	}
	return ""
}

// planOf lays out the lab for probes over the compared model m: a pod for
// every endpoint (IPv4 and IPv6) of the probed Services, with their target
// ports.
func planOf(m *model.Model, node migrate.Node, probes []migrate.Probe) labPlan {
	pl := labPlan{pods: map[netip.Addr][]listen{}}
	for _, f := range []model.Family{model.IPv4, model.IPv6} {
		if a := m.Cluster.ForFamily(f).NodeIP; a.IsValid() && (a.Is4() == (f == model.IPv4)) {
			pl.node = addAddr(pl.node, a)
		}
	}
	for _, a := range node.Other {
		pl.node = addAddr(pl.node, a)
	}
	probed := map[string]bool{}
	for _, p := range probes {
		if unsupported(p) != "" {
			continue
		}
		probed[p.Path.Service] = true
		q := p.Path.Query
		pl.ports = addListen(pl.ports, listen{protoOf(q.Proto), int(q.Dst.Port())})
		switch p.Path.Client {
		case migrate.FromPod:
			pl.client = addAddr(pl.client, q.Src)
		case migrate.FromOutside, migrate.FromInside, migrate.FromDenied:
			pl.external = addAddr(pl.external, q.Src)
		}
		if d := q.Dst.Addr(); !d.IsLoopback() && !slices.Contains(pl.node, d) {
			pl.upstream = addAddr(pl.upstream, d)
		}
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if !probed[s.Namespace+"/"+s.Name] {
			continue
		}
		for _, e := range s.Endpoints {
			for _, p := range s.Ports {
				pl.pods[e.IP] = addListen(pl.pods[e.IP], listen{protoOf(p.Protocol), p.TargetPort})
			}
		}
	}
	return pl
}

func protoOf(p model.Protocol) model.Protocol {
	if p == "" {
		return model.TCP
	}
	return p
}

func addListen(l []listen, x listen) []listen {
	if x.port == 0 || slices.Contains(l, x) {
		return l
	}
	return append(l, x)
}

func addAddr(l []netip.Addr, a netip.Addr) []netip.Addr {
	if !a.IsValid() || slices.Contains(l, a) {
		return l
	}
	return append(l, a)
}
