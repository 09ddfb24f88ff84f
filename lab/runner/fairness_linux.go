package runner

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	"github.com/svclab/svclab/sim/stats"
)

// Options are a run's settings that do not come from the scenario.
type Options struct {
	OutDir   string                // run directory
	Prefix   string                // run prefix; empty means a new random one
	Progress func(done, total int) // optional progress callback
	Log      func(format string, args ...any)
	// OnLab is told about the lab once it is built, so a signal handler can
	// tear it down if the run is stuck past its grace period.
	OnLab func(*Lab)
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// fairnessTarget is one service port of the scenario whose split is measured.
type fairnessTarget struct {
	svc  *model.Service
	port model.Port
}

// RunFairness measures the endpoint split of every explicit service of the
// scenario on each of its fairness dataplanes.
func RunFairness(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	f := sc.Fairness
	m, err := sc.Model()
	if err != nil {
		return nil, err
	}
	lab, err := NewLab(labSpecFor(sc, opts.Prefix, sc.Synthetic != nil && sc.Synthetic.Services > 0, f.ClientOnNode))
	if err != nil {
		return nil, err
	}
	defer lab.Close()
	if opts.OnLab != nil {
		opts.OnLab(lab)
	}
	summary := &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix, Scenario: sc.Name, Kind: "fairness"}
	targets := fairnessTargets(sc.Explicit())
	for _, name := range f.Dataplanes {
		runs, err := fairnessOnDataplane(ctx, lab, name, m, targets, f, opts)
		for i := range runs {
			if aerr := w.Append(results.Record{Type: results.TypeFairness, Fairness: &runs[i]}); aerr != nil {
				return summary, aerr
			}
		}
		summary.Runs = append(summary.Runs, runs...)
		if err != nil {
			return summary, err
		}
	}
	summary.Complete = true
	return summary, nil
}

func fairnessTargets(explicit model.Slice) []fairnessTarget {
	var out []fairnessTarget
	for i := range explicit {
		s := &explicit[i]
		if s.ReadyCount() == 0 {
			continue
		}
		for _, p := range s.Ports {
			if p.Protocol == model.TCP {
				out = append(out, fairnessTarget{svc: s, port: p})
			}
		}
	}
	return out
}

// fairnessOnDataplane programs one dataplane, measures every target, and
// removes the rules again.
func fairnessOnDataplane(ctx context.Context, lab *Lab, name string, m *model.Model, targets []fairnessTarget, f *scenario.Fairness, opts Options) ([]results.FairnessRun, error) {
	dp, err := apply.New(name, lab.Topo.NodeNetns, apply.Settings{IPVSScheduler: f.Scheduler})
	if err != nil {
		return nil, err
	}
	sync, err := dp.FullSync(m)
	if err != nil {
		return nil, err
	}
	opts.logf("%s: programmed %d rules (%d bytes) in %v", name, sync.Payload.Rules, sync.Payload.Bytes, sync.Duration.Round(time.Millisecond))
	defer func() {
		_ = dp.Reset()
		_ = apply.FlushConntrack(lab.Topo.NodeNetns)
	}()
	var runs []results.FairnessRun
	for _, t := range targets {
		run, err := measureSplit(ctx, lab, dp, t, f)
		if err != nil {
			return runs, fmt.Errorf("%s: service %s: %w", name, t.svc.PortName(t.port), err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// measureSplit sends the connections to one service and compares the
// servers' counts, the kernel's counters and the expected split.
func measureSplit(ctx context.Context, lab *Lab, dp apply.Dataplane, t fairnessTarget, f *scenario.Fairness) (results.FairnessRun, error) {
	before := lab.Servers.Stats()
	hist := stats.NewLatencyHistogram()
	spec := traffic.Spec{
		Netns: lab.Topo.ClientNetns, Target: netip.AddrPortFrom(t.svc.ClusterIP, uint16(t.port.Port)),
		Connections: f.Connections, Concurrency: f.Concurrency, Rate: f.Rate,
		Mode: traffic.Mode(f.Mode), RequestsPerConn: f.RequestsPerConn,
	}
	var watch *apply.NATWatch
	if _, isIPT := apply.IPTablesOf(dp); !isIPT {
		if _, isIPVS := apply.IPVSOf(dp); !isIPVS {
			var err error
			if watch, err = apply.WatchNAT(lab.Topo.NodeNetns, spec.Target, t.port.Protocol.Lower()); err != nil {
				return results.FairnessRun{}, err
			}
		}
	}
	sum, err := traffic.Run(ctx, spec, func(r traffic.Record) {
		if r.Err == "" {
			_ = hist.Record(r.Connect)
		}
	})
	var nat map[string]uint64
	if watch != nil {
		var werr error
		if nat, werr = watch.Stop(); err == nil {
			err = werr
		}
	}
	if err != nil {
		return results.FairnessRun{}, err
	}
	after := lab.Servers.Stats()
	run := results.FairnessRun{
		Dataplane: dp.Name(), Service: t.svc.PortName(t.port), ClusterIP: spec.Target.String(), Mode: f.Mode,
		Connections: sum.Connections, Requests: sum.Requests, Errors: sum.Errors, ConnPerSec: sum.ConnPerSec,
		P50us: us(hist.Quantile(0.5)), P99us: us(hist.Quantile(0.99)),
	}
	eps := t.svc.ReadyEndpoints(t.port)
	counts := make([]uint64, len(eps))
	for i, ep := range eps {
		pod := lab.PodOf[netip.MustParseAddrPort(ep).Addr()]
		counts[i] = served(before[pod], after[pod], f.Mode)
		run.Endpoints = append(run.Endpoints, results.Endpoint{Endpoint: ep, Pod: pod, Count: counts[i]})
	}
	if err := fillFairness(&run, counts); err != nil {
		return run, err
	}
	if err := fillKernelCounters(&run, dp, nat, t); err != nil {
		return run, err
	}
	return run, nil
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
	return nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
