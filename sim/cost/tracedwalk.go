package cost

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"sync"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// podClient is where traced first packets come from: a pod (sim/analyze's
// default of each family).
var podClient = analyze.DefaultClient(netip.IPv4Unspecified())

// walkSample is how many of a cluster's service destinations a plan traces
// (evenly spaced, the first and the last among them): enough for the mean
// walk within a rule or two of every destination's, few enough for a
// cluster of 100,000 Services to trace in about a second.
const walkSample = 400

// TracedWalk is what first packets to a cluster's services evaluate,
// traced through its rendered iptables rules (sim/analyze) rather than
// counted: besides the KUBE-SERVICES rules before its own, a first packet
// walks the filter table's rules (a REJECT for each service port without
// endpoints, the firewall and external-service chains) and its service's
// chains, which a mix of Services fills and a calibration's one-port
// services with an endpoint each do not.
type TracedWalk struct {
	// First, Mean and Last are the rules evaluated by a first packet to
	// the first service destination in KUBE-SERVICES, on average over them
	// (connections spread uniformly), and to the last: TCP connections to
	// ClusterIPs that reach an endpoint (connectRows).
	First float64 `json:"first"`
	Mean  float64 `json:"mean"`
	Last  float64 `json:"last"`
	// Offset is what a calibration's one-port service's first packet
	// evaluates besides its KUBE-SERVICES position (its chains, the
	// built-in chains' jumps): the calibration's cost per rule was fitted
	// against the position alone, so a walk counts Offset fewer rules.
	Offset float64 `json:"offset"`
	// Traced is how many destinations First, Mean and Last are over: of
	// those traced (all, or walkSample of them evenly spaced), the TCP
	// ClusterIP destinations that reach an endpoint (connectRows).
	Traced int `json:"traced"`
	// AddrTypeFirst, AddrTypeMean and AddrTypeLast are, of the rules
	// First, Mean and Last count, those whose addrtype match the kernel
	// evaluates (iptrace's AddrTypesEvaluated): each costs a routing
	// lookup (AddrTypeCost).
	AddrTypeFirst float64 `json:"addrtype_first,omitempty"`
	AddrTypeMean  float64 `json:"addrtype_mean,omitempty"`
	AddrTypeLast  float64 `json:"addrtype_last,omitempty"`
	// Recent is, by rule-walk dataplane, what the destinations' ClientIP
	// affinity walks of xt_recent lists take (nil: no destination has
	// affinity): the dataplanes load the same rules in different orders,
	// so their lists are in different places.
	Recent map[string]*RecentWalk `json:"recent,omitempty"`
}

// addrTypes is the addrtype matches a first packet at position
// evaluates (0 for a position the walk does not know).
func (w *TracedWalk) addrTypes(position string) float64 {
	switch position {
	case PositionFirst:
		return w.AddrTypeFirst
	case PositionLast:
		return w.AddrTypeLast
	case PositionUniform, PositionMiddle:
		return w.AddrTypeMean
	}
	return 0
}

// evaluations is the rules a first packet walks at position, as the
// calibration counts them (Evaluations: the KUBE-SERVICES position).
func (w *TracedWalk) evaluations(position string) (float64, error) {
	var rules float64
	switch position {
	case PositionFirst:
		rules = w.First
	case PositionLast:
		rules = w.Last
	case PositionUniform, PositionMiddle:
		rules = w.Mean
	default:
		_, err := Evaluations(LinearWalk, position, 1)
		return 0, err
	}
	return math.Max(rules-w.Offset, 1), nil
}

// scaled is the walk of f times the services: the rules past the offset
// grow in proportion (a cluster's KUBE-SERVICES and filter rules alike),
// the first destination's stays.
func (w *TracedWalk) scaled(f float64) *TracedWalk {
	if w == nil {
		return nil
	}
	grow := func(v float64) float64 { return w.Offset + (v-w.Offset)*f }
	out := &TracedWalk{First: w.First, Mean: grow(w.Mean), Last: grow(w.Last), Offset: w.Offset, Traced: w.Traced,
		AddrTypeFirst: w.AddrTypeFirst * f, AddrTypeMean: w.AddrTypeMean * f, AddrTypeLast: w.AddrTypeLast * f}
	for name, r := range w.Recent {
		if out.Recent == nil {
			out.Recent = map[string]*RecentWalk{}
		}
		out.Recent[name] = r.scaled(f)
	}
	return out
}

// traceWalk traces first packets from a pod to (a sample of) the service
// destinations of proj's iptables payload.
func traceWalk(payload []byte, proj *model.Model, cfg route.Config) (*TracedWalk, error) {
	d, err := route.LoadIPTables(bytes.NewReader(payload), proj, cfg.Config)
	if err != nil {
		return nil, err
	}
	rep, err := analyze.Sample(d, podClient, analyze.Options{}, walkSample)
	if err != nil {
		return nil, fmt.Errorf("trace first packets: %w", err)
	}
	if len(rep.Services) == 0 {
		return nil, nil
	}
	offset, err := calibrationWalkOffset()
	if err != nil {
		return nil, err
	}
	rows := connectRows(rep.Services, proj)
	first, last := rows[0], rows[len(rows)-1]
	w := &TracedWalk{First: float64(first.RulesEvaluated), Last: float64(last.RulesEvaluated), Offset: offset, Traced: len(rows),
		AddrTypeFirst: float64(first.AddrTypeMatches), AddrTypeLast: float64(last.AddrTypeMatches)}
	var rules, addrTypes int
	for _, r := range rows {
		rules, addrTypes = rules+r.RulesEvaluated, addrTypes+r.AddrTypeMatches
	}
	w.Mean, w.AddrTypeMean = float64(rules)/float64(len(rows)), float64(addrTypes)/float64(len(rows))
	if w.Recent, err = tracedRecentWalks(d, payload, rows, proj, cfg); err != nil {
		return nil, err
	}
	return w, nil
}

// connectRows are the traced destinations a first-packet latency is about:
// TCP connections to a ClusterIP that reach an endpoint (what the lab's
// probes connect to, and what pods mostly send), in KUBE-SERVICES order;
// all of rows when none is. A mix's other destinations walk differently:
// a pod's packet to a LoadBalancer IP is marked for masquerading and
// accepted by KUBE-FORWARD before the filter table's KUBE-SERVICES and
// KUBE-EXTERNAL-SERVICES (cluster-500 at 20×: the last destination in
// KUBE-SERVICES, a LoadBalancer IP, walks 11,413 rules and no addrtype
// rule; the last ClusterIP 19,544 and 2,222), a UDP one passes the TCP
// NodePorts' addrtype rules by their -p, a rejected one stops early.
func connectRows(rows []analyze.ServiceRow, proj *model.Model) []analyze.ServiceRow {
	clusterIPs := map[netip.Addr]bool{}
	for i := range proj.Services.Len() {
		svc := proj.Services.At(i)
		clusterIPs[svc.ClusterIP], clusterIPs[svc.SecondaryClusterIP] = true, true
	}
	var out []analyze.ServiceRow
	for _, r := range rows {
		dst, err := netip.ParseAddrPort(r.Destination)
		if err == nil && r.Protocol == "tcp" && r.Endpoints > 0 && r.Verdict == "ACCEPT" && clusterIPs[dst.Addr()] {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return rows
	}
	return out
}

// calibrationWalkOffset is, traced, what the first packet to a lone
// one-port service with one endpoint (a calibration sweep's) evaluates
// besides its one KUBE-SERVICES rule.
var calibrationWalkOffset = sync.OnceValues(func() (float64, error) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 1, EndpointsPerService: 1, Seed: 1})
	if err != nil {
		return 0, err
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	cfg := route.Config{Mode: dataplane.ModeIPTables}
	var payload bytes.Buffer
	if _, err := route.Render(&payload, m, cfg); err != nil {
		return 0, fmt.Errorf("render a one-service calibration ruleset: %w", err)
	}
	d, err := route.LoadIPTables(&payload, m, cfg.Config)
	if err != nil {
		return 0, err
	}
	rep, err := analyze.Analyze(d, podClient, analyze.Options{})
	if err != nil {
		return 0, fmt.Errorf("trace a one-service calibration ruleset: %w", err)
	}
	if len(rep.Services) != 1 {
		return 0, fmt.Errorf("trace a one-service calibration ruleset: %d service destinations, want 1", len(rep.Services))
	}
	return float64(rep.Services[0].RulesEvaluated - 1), nil
})
