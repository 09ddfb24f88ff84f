package runner

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/machine"
	labtl "github.com/svclab/svclab/lab/timeline"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	tl "github.com/svclab/svclab/sim/timeline"
)

// errTimelineNeedsKernel: a timeline runs on real namespaces only.
var errTimelineNeedsKernel = errors.New("a timeline runs on this kernel's namespaces only (not on a simulated machine)")

// RunTimeline runs the scenario's timeline on each of its dataplanes, one
// lab for all (every pod address the timeline uses is a pod of it),
// appending one timeline record per dataplane to w.
func RunTimeline(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	opts = opts.withDefaults()
	summary := &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix, Scenario: sc.Name, Kind: "timeline"}
	plan, err := tl.Build(sc)
	if err != nil {
		return summary, err
	}
	spec := timelineLabSpec(sc, opts.Prefix, plan)
	l, err := opts.Machine.BuildLab(ctx, spec)
	if err != nil {
		return summary, err
	}
	defer l.Close()
	kl, ok := l.(*kernelLab)
	if !ok {
		return summary, errTimelineNeedsKernel
	}
	env := kl.timelineEnv()
	for _, name := range sc.Timeline.Dataplanes {
		run, err := timelineOn(ctx, kl, env, name, sc, plan, opts)
		if err == nil || len(run.Seconds) > 0 {
			if aerr := w.Append(results.Record{Type: results.TypeTimeline, Timeline: &run}); aerr != nil {
				return summary, aerr
			}
			summary.Timelines = append(summary.Timelines, run)
		}
		if err != nil {
			return summary, fmt.Errorf("timeline on %s: %w", name, err)
		}
	}
	summary.Complete = len(summary.Timelines) == len(sc.Timeline.Dataplanes)
	return summary, nil
}

// timelineOn runs the timeline on one dataplane with the scenario's engine.
func timelineOn(ctx context.Context, l *kernelLab, env labtl.Env, name string, sc *scenario.Scenario, plan *tl.Plan, opts Options) (results.TimelineRun, error) {
	s := settingsFor(sc, "")
	eng, err := timelineEngine(ctx, l, name, s, sc)
	if err != nil {
		return results.TimelineRun{}, err
	}
	defer func() {
		_ = eng.Close()
		_ = l.FlushConntrack()
	}()
	opts.logf("%s: timeline of %v, %d changes, engine %s", name, sc.Timeline.Duration, len(plan.Changes), s.Engine)
	run, err := labtl.Run(ctx, env, eng, sc, plan)
	run.Dataplane, run.Engine = name, s.Engine
	if s.Engine == scenario.EngineKubeProxy {
		run.KubeProxyVersion = string(s.Version)
	}
	return run, err
}

// timelineEngine is the native renderer on the named dataplane, or
// kube-proxy's own sync loop.
func timelineEngine(ctx context.Context, l *kernelLab, name string, s apply.Settings, sc *scenario.Scenario) (labtl.Engine, error) {
	engine := s.Engine
	s.Engine = scenario.EngineNative
	dp, err := l.Dataplane(name, s)
	if err != nil {
		return nil, err
	}
	if engine != scenario.EngineKubeProxy {
		return &labtl.Native{DP: dp}, nil
	}
	info, _ := dataplane.Lookup(name)
	bin, err := kubeproxy.Find(string(s.Version))
	if err != nil {
		_ = dp.Close()
		return nil, err
	}
	t := sc.Timeline
	return &labtl.KubeProxy{Opt: kubeproxy.LoopOptions{NS: l.topo.NodeNetns, Bin: bin, IPTables: info.IPTablesBackend},
		Mode: string(info.Mode), Config: s.Config, MinSyncPeriod: t.MinSyncPeriod, SyncPeriod: t.SyncPeriod, Reset: dp.Reset}, nil
}

// timelineLabSpec is the lab of a timeline: every pod the plan uses, the
// sink for synthetic services, an external client when traffic comes from
// outside.
func timelineLabSpec(sc *scenario.Scenario, prefix string, plan *tl.Plan) machine.LabSpec {
	spec := labSpecFor(sc, prefix, plan.MaxSynthetic > 0, false)
	spec.Targets = plan.Pods
	for _, t := range sc.Timeline.Traffic {
		if t.From == "external" {
			m, _ := sc.Model()
			if m != nil {
				spec.ExternalIPs = []netip.Addr{topo.PathsFor(m, plan.Pods, scenario.FairnessPaths{}).ExternalInside[0]}
			}
		}
	}
	return spec
}

// timelineEnv is the lab as the timeline executor sees it.
func (l *kernelLab) timelineEnv() labtl.Env {
	env := labtl.Env{NodeNetns: l.topo.NodeNetns, ClientNetns: l.topo.ClientNetns, ExternalNetns: l.topo.ExternalNetns,
		PodNetns: map[netip.Addr]string{}, PodIP: map[string]netip.Addr{}}
	if len(l.topo.ExternalIPs) > 0 {
		env.ExternalIP = l.topo.ExternalIPs[0]
	}
	for _, p := range l.topo.Pods {
		env.PodNetns[p.IP] = p.Netns
		env.PodIP[l.podOf[p.IP]] = p.IP
	}
	return env
}
