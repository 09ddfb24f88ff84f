package audit

import (
	"fmt"
	"math"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// Effect is what the node's rules do to one path of a Service, beside
// what kube-proxy's rules would do.
type Effect struct {
	Service string `json:"service"`
	// Path names the connection: "pod → 10.96.0.10:53/udp (ClusterIP)".
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Changes name each difference: an endpoint gone, traffic dropped, a
	// stale endpoint still receiving, a share or the source seen changed.
	Changes []string `json:"changes"`
}

// externalClient is the client outside the cluster that connects to
// NodePorts, load-balancer and external IPs.
var externalClient = [2]netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("2001:db8:ffff::7")}

// path is one connection of a Service to route.
type path struct {
	service, name string
	q             route.Query
}

// servicePaths lists every path of every Service of m (one family's
// model): a pod and the node to each ClusterIP port, an external client
// to each NodePort on the node's address and to each load-balancer and
// external IP.
func servicePaths(m *model.Model) []path {
	var out []path
	node := m.Cluster.NodeIP
	ext := externalClient[m.Family]
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if s.Skipped() {
			continue
		}
		key := kube.Key(s)
		for _, p := range s.Ports {
			add := func(from string, dst netip.Addr, port int, origin route.Origin, src netip.Addr, what string) {
				ap := netip.AddrPortFrom(dst, uint16(port))
				out = append(out, path{service: key, name: fmt.Sprintf("%s → %s/%s (%s)", from, ap, strings.ToLower(string(p.Protocol)), what),
					q: route.Query{Dst: ap, Proto: p.Protocol, From: origin, Src: src}})
			}
			add("pod", s.ClusterIP, p.Port, route.FromPod, analyze.DefaultClient(s.ClusterIP), "ClusterIP")
			if node.IsValid() {
				add("node", s.ClusterIP, p.Port, route.FromNode, netip.Addr{}, "ClusterIP")
				if p.NodePort > 0 {
					add("external", node, p.NodePort, route.FromPod, ext, "NodePort")
				}
			}
			for _, a := range s.LoadBalancerIPs {
				add("external", a, p.Port, route.FromPod, ext, "LoadBalancer")
			}
			for _, a := range s.ExternalIPs {
				add("external", a, p.Port, route.FromPod, ext, "externalIP")
			}
		}
	}
	return out
}

// stalePaths lists the service addresses the node's rules still serve for
// Services the objects no longer have (or for no Service at all).
func stalePaths(got *analyze.Dump, known map[string]bool, idx *owners, node netip.Addr) []path {
	opts := analyze.Options{SkipPaths: true}
	if node.IsValid() {
		opts.Local = []netip.Addr{node}
	}
	var src netip.Addr
	rep, err := analyze.Analyze(got, src, opts)
	if err != nil || rep == nil {
		return nil
	}
	var out []path
	for _, row := range rep.Services {
		svc := rowService(row.Service)
		ap, err := netip.ParseAddrPort(row.Destination)
		if err != nil || known[svc] || idx.ofAddr(ap.Addr()) != "" || ap.Addr() == node && idx.nodePorts[int(ap.Port())] != "" {
			continue
		}
		proto := model.Protocol(strings.ToUpper(row.Protocol))
		out = append(out, path{service: svc, name: fmt.Sprintf("pod → %s/%s (a Service the objects lack)", ap, strings.ToLower(row.Protocol)),
			q: route.Query{Dst: ap, Proto: proto, From: route.FromPod, Src: analyze.DefaultClient(ap.Addr())}})
	}
	return out
}

// rowService is "ns/name" of an analyze row's service ("ns/name:port",
// "ns/name/tcp/port"), the row's text when it is neither.
func rowService(s string) string {
	if s := serviceOfPortName(s); s != "" {
		return s
	}
	parts := strings.Split(s, "/")
	if len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return s
}

// routeEffects routes every path over the expected rules and over the
// node's, and returns the paths whose answers differ, and how many paths
// were routed. A node without findings is not routed.
func routeEffects(m *model.Model, want, got *analyze.Dump, fam model.Family, findings []Finding) ([]Effect, int, error) {
	if len(findings) == 0 {
		return nil, 0, nil
	}
	wo, err := route.FromRules(route.FamilyRules{Family: fam, Rules: want, Node: m.Cluster.NodeIP})
	if err != nil {
		return nil, 0, fmt.Errorf("compile kube-proxy's rules: %w", err)
	}
	gotRules := got
	if got.Kind == analyze.KindIPVS && got.IPSets == nil {
		c := *got
		c.IPSets = want.IPSets
		gotRules = &c
	}
	go_, err := route.FromRules(route.FamilyRules{Family: fam, Rules: gotRules, Node: m.Cluster.NodeIP})
	if err != nil {
		return nil, 0, fmt.Errorf("%w: compile the node's rules: %v", ErrInput, err)
	}
	known := map[string]bool{}
	for i := 0; i < m.Services.Len(); i++ {
		known[kube.Key(m.Services.At(i))] = true
	}
	paths := append(servicePaths(m), stalePaths(got, known, newOwners(m), m.Cluster.NodeIP)...)
	var out []Effect
	for _, p := range paths {
		if e, ok := effectOf(p, wo, go_); ok {
			out = append(out, e)
		}
	}
	return out, len(paths), nil
}

// effectOf routes p both ways; ok when the answers differ.
func effectOf(p path, want, got *route.Oracle) (Effect, bool) {
	wa, werr := want.Route(p.q)
	ga, gerr := got.Route(p.q)
	e := Effect{Service: p.service, Path: p.name}
	switch {
	case werr != nil && gerr != nil:
		return e, false
	case werr != nil || gerr != nil:
		e.Expected, e.Actual = answerText(wa, werr), answerText(ga, gerr)
		e.Changes = []string{"undecided: the tracer cannot decide one side's verdict"}
		return e, true
	}
	e.Changes = changes(wa, ga)
	e.Expected, e.Actual = answerText(wa, nil), answerText(ga, nil)
	return e, len(e.Changes) > 0
}

// changes names each difference between two answers.
func changes(want, got route.Answer) []string {
	switch {
	case want.Dropped && got.Dropped:
		return nil
	case got.Dropped:
		return []string{"traffic dropped: no endpoint is reached (" + verdictText(got) + ")"}
	case want.Dropped:
		return []string{"traffic still reaches " + endpointsText(got) + " where kube-proxy's rules reach no endpoint"}
	}
	var out []string
	wantBy := map[netip.AddrPort]route.Endpoint{}
	for _, e := range want.Endpoints {
		wantBy[e.Addr] = e
	}
	gotBy := map[netip.AddrPort]bool{}
	for _, e := range got.Endpoints {
		gotBy[e.Addr] = true
		w, ok := wantBy[e.Addr]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("stale endpoint %s still receives %s of new connections", e.Addr, pct(e.Probability)))
		case math.Abs(w.Probability-e.Probability) > 1e-6:
			out = append(out, fmt.Sprintf("endpoint %s receives %s instead of %s", e.Addr, pct(e.Probability), pct(w.Probability)))
		}
		if ok && w.Seen != e.Seen {
			out = append(out, fmt.Sprintf("endpoint %s sees source %s instead of %s", e.Addr, e.Seen, w.Seen))
		}
	}
	for _, e := range want.Endpoints {
		if !gotBy[e.Addr] {
			out = append(out, fmt.Sprintf("endpoint %s gone (it should receive %s)", e.Addr, pct(e.Probability)))
		}
	}
	return out
}

func answerText(a route.Answer, err error) string {
	switch {
	case err != nil:
		return "undecided: " + err.Error()
	case a.Dropped:
		return "no endpoint (" + verdictText(a) + ")"
	}
	return endpointsText(a)
}

func verdictText(a route.Answer) string {
	if a.Verdict == "" {
		return "no verdict"
	}
	return "verdict " + a.Verdict
}

func endpointsText(a route.Answer) string {
	parts := make([]string, len(a.Endpoints))
	for i, e := range a.Endpoints {
		parts[i] = e.Addr.String() + " " + pct(e.Probability)
	}
	return strings.Join(parts, ", ")
}

// pct writes a probability as a percentage ("50%", "33.3%").
func pct(p float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", p*100), ".0") + "%"
}
