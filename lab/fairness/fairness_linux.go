package fairness

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/scenario"
	"github.com/svclab/svclab/sim/stats"
)

// Options are what a fairness measurement takes from the run around it.
type Options struct {
	// Machine builds the lab.
	Machine machine.Machine
	// Lab is the lab the scenario needs; Run adds the node's addresses,
	// the external client and the second node its paths ask for.
	Lab machine.LabSpec
	// Settings is how each dataplane is programmed.
	Settings apply.Settings
	// Log receives one line per dataplane programmed (optional).
	Log func(format string, args ...any)
}

// Run measures the endpoint split of every explicit service of the
// scenario on each of its fairness dataplanes, appending one record per
// measurement to w. The summary is complete only when every planned
// measurement was made.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	f := sc.Fairness
	m, err := sc.Model()
	if err != nil {
		return nil, err
	}
	summary := &results.Summary{Schema: results.SchemaVersion, Run: opts.Lab.Prefix, Scenario: sc.Name, Kind: "fairness"}
	paths := topo.PathsFor(m, sc.Explicit(), f.Paths)
	m = withNodeAddrs(m, paths)
	spec := opts.Lab
	oracles, err := oraclesFor(m, opts.Settings, f.Dataplanes)
	if err != nil {
		return summary, err
	}
	targets, warnings := routedTargets(sc.Explicit(), paths, spec, oracles, f.Dataplanes)
	summary.Warnings = append(summary.Warnings, warnings...)
	if len(targets) == 0 {
		summary.Warnings = append(summary.Warnings, "no explicit TCP service has a usable endpoint and an address of the target kind: nothing to measure")
		return summary, nil
	}
	spec.NodeIP, spec.NodeIPv6, spec.SecondNode = paths.NodeIP, paths.NodeIPv6, paths.NeedsSecondNode(spec.Targets)
	if paths.NeedsExternal() {
		spec.ExternalIPs = paths.ExternalIPs()
	}
	lab, err := opts.Machine.BuildLab(ctx, spec)
	if err != nil {
		return summary, err
	}
	defer lab.Close()
	planned := len(targets) * len(f.Dataplanes)
	for _, name := range f.Dataplanes {
		runs, err := fairnessOnDataplane(ctx, lab, name, m, targets, opts.Settings, f, opts)
		for i := range runs {
			if aerr := w.Append(results.Record{Type: results.TypeFairness, Fairness: &runs[i]}); aerr != nil {
				return summary, aerr
			}
			summary.Warnings = append(summary.Warnings, countWarnings(&runs[i])...)
		}
		summary.Runs = append(summary.Runs, runs...)
		if err != nil {
			return summary, err
		}
	}
	summary.Complete = len(summary.Runs) == planned
	return summary, nil
}

// countWarnings says when the servers and the kernel counted differently,
// or a path promised to drop connections that were answered.
func countWarnings(run *results.FairnessRun) []string {
	if run.ExpectDropped {
		if answered := run.Connections - run.Errors; answered > 0 {
			return []string{fmt.Sprintf("%s %s: the rules promise to drop every connection from %s to %s, but %d of %d were answered", run.Dataplane, run.Service, run.Source, run.Address, answered, run.Connections)}
		}
		return nil
	}
	if run.CountsAgree || run.KernelCounter == "" {
		return nil
	}
	var diffs string
	for _, ep := range run.Endpoints {
		if served := servedConnections(*run, ep); served != ep.DNAT {
			diffs += fmt.Sprintf(" %s served %d connections, kernel %d;", ep.Endpoint, served, ep.DNAT)
		}
	}
	return []string{fmt.Sprintf("%s %s: server counts and kernel counters (%s) differ:%s", run.Dataplane, run.Service, run.KernelCounter, diffs)}
}

// servedConnections is the connections an endpoint's server accepted.
func servedConnections(run results.FairnessRun, ep results.Endpoint) uint64 {
	if run.Mode == "keepalive" {
		return ep.Connections
	}
	return ep.Count
}

// fairnessTarget is one service port of the scenario whose split is measured.
type fairnessTarget = apply.Target

// routedTarget is a fairness target and how the run's path reaches it
// through each dataplane (route: through the one being measured).
type routedTarget struct {
	fairnessTarget
	route  Route
	routes map[string]Route
}

// routedTargets lists the TCP ports of the explicit services, projected
// onto the run's family, that have a usable endpoint, with their routes
// through each of the dataplanes; the warnings say which were left out and
// why.
func routedTargets(explicit model.Slice, paths topo.Paths, spec machine.LabSpec, oracles map[string]*route.Oracle, dataplanes []string) ([]routedTarget, []string) {
	var out []routedTarget
	var warnings []string
	for i := range explicit {
		s := model.ProjectService(&explicit[i], paths.Family)
		for _, p := range s.Ports {
			if p.Protocol != model.TCP || len(model.UsableEndpoints(s.PortEndpoints(p))) == 0 {
				continue
			}
			t := fairnessTarget{Service: &s, Port: p}
			rt, err := routeEach(t, paths, spec, oracles, dataplanes)
			if err != nil {
				warnings = append(warnings, err.Error()+": not measured")
				continue
			}
			out = append(out, rt)
		}
	}
	return out, warnings
}

// oraclesFor builds the routing oracle of each dataplane: one per
// kube-proxy mode they follow (route.ModeOf), over m as the run's
// settings render it.
func oraclesFor(m *model.Model, s apply.Settings, dataplanes []string) (map[string]*route.Oracle, error) {
	byMode := map[route.Mode]*route.Oracle{}
	out := map[string]*route.Oracle{}
	for _, name := range dataplanes {
		mode, err := route.ModeOf(name)
		if err != nil {
			return nil, err
		}
		if byMode[mode] == nil {
			cfg := route.Config{Mode: mode, Config: s.Config}
			if byMode[mode], err = route.New(m, cfg); err != nil {
				return nil, fmt.Errorf("routes through %s: %w", name, err)
			}
		}
		out[name] = byMode[mode]
	}
	return out, nil
}

// routeEach resolves t's route through each dataplane (the address and
// source are the path's, the same for all).
func routeEach(t fairnessTarget, paths topo.Paths, spec machine.LabSpec, oracles map[string]*route.Oracle, dataplanes []string) (routedTarget, error) {
	rt := routedTarget{routes: map[string]Route{}}
	for _, name := range dataplanes {
		r, err := routeWith(paths, oracles[name], t, topo.DefaultClientIP, spec.ClientIPv6)
		if err != nil {
			return rt, err
		}
		t.Dest, rt.routes[name] = r.Address, r
	}
	rt.fairnessTarget = t
	return rt, nil
}

// withNodeAddrs returns m with the lab node's addresses as its node IPs.
func withNodeAddrs(m *model.Model, p topo.Paths) *model.Model {
	out := *m
	out.Cluster.NodeIP, out.Cluster.NodeIPv6 = p.NodeIP, p.NodeIPv6
	return &out
}

// fairnessOnDataplane programs one dataplane, measures every target, and
// removes the rules again.
func fairnessOnDataplane(ctx context.Context, lab machine.Lab, name string, m *model.Model, targets []routedTarget, s apply.Settings, f *scenario.Fairness, opts Options) ([]results.FairnessRun, error) {
	dp, err := lab.Dataplane(name, s)
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = dp.Close()
		_ = lab.FlushConntrack()
	}()
	sync, err := dp.FullSync(ctx, m)
	if err != nil {
		return nil, err
	}
	if opts.Log != nil {
		opts.Log("%s: %s", name, programmedLine(s, sync))
	}
	var runs []results.FairnessRun
	for _, t := range targets {
		t.route = t.routes[name]
		run, err := measureSplit(ctx, lab, dp, t, f)
		run.From, run.Target, run.Family = string(f.Paths.From), string(f.Paths.Target), f.Paths.Family.String()
		if err != nil {
			return runs, fmt.Errorf("%s: service %s: %w", name, t.Name(), err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// droppedConnections caps the connections sent on a path the rules promise
// to drop, each of which waits out droppedTimeout.
const (
	droppedConnections = 20
	droppedTimeout     = time.Second
)

// measureSplit sends the connections to one service and compares the
// servers' counts, the kernel's counters and the expected split; on a path
// the rules promise to drop it counts the drops instead.
func measureSplit(ctx context.Context, lab machine.Lab, dp apply.Dataplane, t routedTarget, f *scenario.Fairness) (results.FairnessRun, error) {
	before, sourcesBefore := lab.ServerStats(), lab.ServerSources()
	hist := stats.NewLatencyHistogram()
	spec := traffic.Spec{
		Target: t.route.Address, Source: t.route.Source, Connections: f.Connections, Concurrency: f.Concurrency, Rate: f.Rate,
		Mode: traffic.Mode(f.Mode), RequestsPerConn: f.RequestsPerConn,
	}
	if t.route.Dropped {
		spec.Connections, spec.Timeout = min(spec.Connections, droppedConnections), droppedTimeout
	}
	counted := t.fairnessTarget
	if !t.route.Dropped {
		counted.Endpoints = t.route.Expected // the kernel counts where the rules send the traffic
	}
	counting, err := dp.Count(ctx, counted)
	if err != nil {
		return results.FairnessRun{}, err
	}
	sum, err := lab.Connect(ctx, spec, func(r traffic.Record) {
		if r.Err == "" {
			_ = hist.Record(r.Connect)
		}
	})
	if err != nil && t.route.Dropped && ctx.Err() == nil && sum.Connections > 0 {
		err = nil // every connection failed, as the rules promise
	}
	counters, cerr := counting.Stop(ctx)
	if err == nil {
		err = cerr
	}
	if err != nil {
		return results.FairnessRun{}, err
	}
	after := settledServerStats(ctx, lab, before, uint64(max(sum.Connections-sum.Errors, 0)))
	sourcesAfter := lab.ServerSources()
	run := results.FairnessRun{
		Dataplane: dp.Name(), Service: t.Name(), ClusterIP: t.Service.ClusterIP.String(), Mode: f.Mode,
		Connections: sum.Connections, Requests: sum.Requests, Errors: sum.Errors, ConnPerSec: sum.ConnPerSec,
		P50us: stats.Micros(hist.Quantile(0.5)), P99us: stats.Micros(hist.Quantile(0.99)),
		Address: spec.Target.String(), ExpectDropped: t.route.Dropped,
	}
	if spec.Source.IsValid() {
		run.Source = spec.Source.String()
	}
	eps := t.route.Expected
	if t.route.Dropped {
		eps = t.Service.UsableEndpointAddrs(t.Port)
	}
	counts := make([]uint64, len(eps))
	for i, ep := range eps {
		pod := lab.PodOf(netip.MustParseAddrPort(ep).Addr())
		counts[i] = served(before[pod], after[pod], f.Mode)
		run.Endpoints = append(run.Endpoints, results.Endpoint{Endpoint: ep, Pod: pod, Count: counts[i],
			Sources: sourcesSeen(sourcesBefore[pod], sourcesAfter[pod])})
		if f.Mode == "keepalive" {
			run.Endpoints[i].Connections = after[pod].Accepted - before[pod].Accepted
		}
	}
	run.LeftOut = leftOut(t, eps, lab, before, after, f.Mode)
	if t.route.Dropped {
		return run, nil
	}
	if err := fillFairness(&run, counts); err != nil {
		return run, err
	}
	fillKernelCounts(&run, counters)
	return run, nil
}

// leftOut returns the target's endpoints that are not among eps (those the
// rules route the traffic to) and have a pod in the lab, with what each
// pod served.
func leftOut(t routedTarget, eps []string, lab machine.Lab, before, after map[string]podserver.Stats, mode string) []results.Endpoint {
	routed := map[string]bool{}
	for _, ep := range eps {
		routed[ep] = true
	}
	var out []results.Endpoint
	for _, e := range t.Service.PortEndpoints(t.Port) {
		pod := lab.PodOf(e.IP)
		if routed[e.Addr] || pod == "" {
			continue
		}
		out = append(out, results.Endpoint{Endpoint: e.Addr, Pod: pod, Count: served(before[pod], after[pod], mode)})
	}
	return out
}

// sourcesSeen is the per-source difference of two snapshots, by address.
func sourcesSeen(before, after map[netip.Addr]uint64) map[string]uint64 {
	var out map[string]uint64
	for ip, n := range after {
		if d := n - before[ip]; d > 0 {
			if out == nil {
				out = map[string]uint64{}
			}
			out[ip.String()] = d
		}
	}
	return out
}

// served is what a pod's server counted between two snapshots: requests in
// keep-alive mode (the split people feel), connections otherwise.
func served(before, after podserver.Stats, mode string) uint64 {
	if mode == "keepalive" {
		return after.Requests - before.Requests
	}
	return after.Accepted - before.Accepted
}

func fillFairness(run *results.FairnessRun, counts []uint64) error {
	fr, err := stats.Fairness(counts, nil)
	if err != nil {
		return fmt.Errorf("fairness of %s: %w", run.Service, err)
	}
	run.ChiSquare, run.ChiSquareP, run.Jain, run.MaxMinRatio = fr.ChiSquare, fr.P, fr.Jain, fr.MaxMinRatio
	for i, e := range fr.Endpoints {
		ep := &run.Endpoints[i]
		ep.Share, ep.ShareLo, ep.ShareHi, ep.Expected = e.Share, e.ShareLo, e.ShareHi, e.Expected
	}
	if run.Mode != "keepalive" {
		return nil
	}
	conns := make([]uint64, len(run.Endpoints))
	for i, e := range run.Endpoints {
		conns[i] = e.Connections
	}
	cr, err := stats.Fairness(conns, nil)
	if err != nil {
		return fmt.Errorf("fairness of %s's connections: %w", run.Service, err)
	}
	run.ConnChiSquareP = &cr.P
	return nil
}

// programmedLine says who wrote the rules, which kube-proxy release's they
// are, and what was loaded: "kube-proxy v1.37.2 wrote 2339 bytes in 41 ms"
// or "svclab's renderer wrote kube-proxy v1.37.2's rules: 26 rules, 2339
// bytes in 12 ms". The kube-proxy engine's payload is not parsed into rules.
func programmedLine(s apply.Settings, sync apply.Sync) string {
	patch := s.Version.Release().Patch
	took := metric.FormatSeconds(sync.Duration.Seconds())
	if s.Engine == scenario.EngineKubeProxy {
		return fmt.Sprintf("kube-proxy %s wrote %d bytes in %s", patch, sync.Payload.Bytes, took)
	}
	return fmt.Sprintf("svclab's renderer wrote kube-proxy %s's rules: %d rules, %d bytes in %s", patch, sync.Payload.Rules, sync.Payload.Bytes, took)
}
