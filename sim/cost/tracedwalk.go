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
	// (connections spread uniformly), and to the last.
	First float64 `json:"first"`
	Mean  float64 `json:"mean"`
	Last  float64 `json:"last"`
	// Offset is what a calibration's one-port service's first packet
	// evaluates besides its KUBE-SERVICES position (its chains, the
	// built-in chains' jumps): the calibration's cost per rule was fitted
	// against the position alone, so a walk counts Offset fewer rules.
	Offset float64 `json:"offset"`
	// Traced is how many destinations were traced (all, or walkSample of
	// them evenly spaced).
	Traced int `json:"traced"`
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
	return &TracedWalk{First: w.First, Mean: grow(w.Mean), Last: grow(w.Last), Offset: w.Offset, Traced: w.Traced}
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
	return &TracedWalk{First: float64(rep.Services[0].RulesEvaluated), Mean: rep.Mean,
		Last: float64(rep.Services[len(rep.Services)-1].RulesEvaluated), Offset: offset, Traced: len(rep.Services)}, nil
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
