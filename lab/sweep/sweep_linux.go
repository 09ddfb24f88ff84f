package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	"github.com/svclab/svclab/sim/stats"
)

// sweepLab is one point's lab: its own node with one dataplane's rules for
// N services. Every point of a sweep keeps its lab for the whole run, so the
// repetitions can visit points in a fresh random order without reloading.
type sweepLab struct {
	plan    planPoint
	lab     machine.Lab
	machine machine.Machine
	dp      apply.Dataplane
	model   *model.Model
	fillers *model.Generator
	// uniform are the uniform position's targets when a synthetic.mix
	// shapes the fillers (uniformTargets); nil: every service.
	uniform []netip.AddrPort
	// created makes k services the point does not have, for a batch of
	// Service creations (sweep.incrementalBatchKind: services).
	created func(k int) ([]model.Service, error)
	base    results.Point // sync, size and memory, measured at setup
	// syncLine is the setup's log line (sync times and size); Run
	// logs them in plan order once every point is set up, since points
	// are set up in a random order.
	syncLine string
	order    int // the point's index in the plan
	// logf is the run's log, for what a repetition's reload says.
	logf func(format string, args ...any)
}

// Run measures first-packet latency, CPU, throughput and sync time for
// each dataplane and service count of the scenario's sweep, appending one
// point record per position and repetition to w.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	if opts.Machine == nil {
		return summarize(sc, nil, false), errNoMachine
	}
	opts = opts.withDefaults()
	spec := sc.Sweep
	if err := CheckProbeCPU(spec.ProbeCPU); err != nil {
		return summarize(sc, nil, false), err
	}
	plan := sweepPlan(spec)
	labs := make([]*sweepLab, 0, len(plan))
	defer func() {
		for _, l := range labs {
			_ = l.dp.Close()
			_ = l.lab.Close()
		}
	}()
	total := len(plan) * (1 + spec.Repetitions)
	done := 0
	if opts.Progress != nil {
		opts.Progress(0, total) // the steps begin: a first load can take an hour
	}
	step := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	for i, idx := range shuffled(len(plan), spec.Seed) {
		if ctx.Err() != nil {
			return partialSummary(sc, w), ctx.Err()
		}
		l, err := setUpPoint(ctx, sc, plan[idx], fmt.Sprintf("%s-%x", opts.Prefix, i), opts)
		if err != nil {
			return partialSummary(sc, w), err
		}
		l.order = idx
		labs = append(labs, l)
		step()
	}
	logSyncLines(labs, opts)
	var records []results.Record
	var slowest time.Duration
	for rep := 1; rep <= spec.Repetitions; rep++ {
		if !opts.repetitionFits(rep, time.Now(), slowest) {
			opts.logf("stopped after %d of %d repetitions: another (%s) would end after the deadline", rep-1, spec.Repetitions, slowest.Round(time.Second))
			break
		}
		started := time.Now()
		for _, idx := range shuffled(len(labs), spec.Seed+uint64(rep)) {
			points, err := measurePoint(ctx, labs[idx], spec, rep)
			for i := range points {
				rec := results.Record{Type: labs[idx].recordType(), Point: &points[i]}
				records = append(records, rec)
				if aerr := w.Append(rec); aerr != nil {
					return nil, aerr
				}
			}
			if err != nil {
				return summarize(sc, records, false), err
			}
			step()
		}
		slowest = max(slowest, time.Since(started))
	}
	return summarize(sc, records, true), nil
}

// setUpPoint builds a point's lab and loads its rules, timing the full and
// the incremental sync where the scenario asks for it.
func setUpPoint(ctx context.Context, sc *scenario.Scenario, p planPoint, prefix string, opts Options) (*sweepLab, error) {
	spec := sc.Sweep
	m, gen, err := sc.SweepModel(p.services, spec.EndpointsPerService, spec.Seed)
	if err != nil {
		return nil, err
	}
	lab, err := opts.Machine.BuildLab(ctx, machine.LabSpec{Prefix: prefix, Targets: scenario.SweepTargets(), FillerCIDR: sc.FillerCIDR(), Fillers: gen.Len() > 0,
		FillerPort: model.DefaultPort.TargetPort, ServiceCIDRs: []netip.Prefix{sc.Cluster().ServiceCIDR}, PlantRules: opts.PlantRules})
	if err != nil {
		return nil, err
	}
	l := &sweepLab{plan: p, lab: lab, machine: opts.Machine, model: m, fillers: gen, logf: opts.logf}
	if slices.Contains(spec.Positions, scenario.PositionUniform) {
		mixed := sc.Synthetic != nil && sc.Synthetic.Mix != nil
		if l.uniform, err = uniformTargets(m, mixed, p.dataplane, opts.Settings); err != nil {
			return nil, closeLab(lab, fmt.Errorf("%s at %d services: %w", p.dataplane, p.services, err))
		}
	}
	l.created = func(k int) ([]model.Service, error) {
		return sc.SweepCreations(p.services, spec.EndpointsPerService, spec.Seed, k)
	}
	dp, err := lab.Dataplane(p.dataplane, opts.Settings)
	if err != nil {
		return nil, closeLab(lab, err)
	}
	l.dp = dp
	load := l.load
	if p.walkProbe {
		load = l.loadWalkProbe
	}
	if err := load(ctx, spec, opts); err != nil {
		_ = dp.Close()
		return nil, closeLab(lab, fmt.Errorf("%s at %d services: %w", p.dataplane, p.services, err))
	}
	return l, nil
}

func (l *sweepLab) load(ctx context.Context, spec *scenario.Sweep, opts Options) error {
	dp := l.dp
	lists := l.recentLists()
	memBefore, memErr := l.machine.KernelMemory()
	timed := !l.plan.lookupProbe // a lookup probe's one load is not a sample of syncs
	if limit, ok := spec.SyncLimit[l.plan.dataplane]; ok && l.plan.services > limit {
		timed = false
	}
	var sync apply.Sync
	var err error
	if timed {
		sync, err = dp.FullSync(ctx, l.model)
	} else {
		sync, err = dp.Program(ctx, l.model)
	}
	if err != nil {
		return err
	}
	l.base = results.Point{Dataplane: l.plan.dataplane, Services: l.plan.services, Rules: sync.Payload.Rules,
		Bytes: sync.Payload.Bytes, Lines: sync.Payload.Lines, KernelMemBytes: l.memoryGrowth(memBefore, memErr, lists)}
	if timed {
		l.base.SyncFullS, l.base.SyncFullCPUS = sync.Duration.Seconds(), sync.CPU.Seconds()
		l.base.SyncFullUserS = sync.UserCPU.Seconds()
	}
	// A sync probe times one change: what a batch adds per change is
	// fitted on the points alone.
	batch := spec.IncrementalBatch
	if l.plan.syncProbe {
		batch = 0
	}
	incrementalTimed := !l.plan.lookupProbe
	if limit, ok := spec.IncrementalLimit[l.plan.dataplane]; ok && l.plan.services > limit {
		incrementalTimed = false
	}
	if incrementalTimed {
		if err := l.incremental(ctx, batch, spec.IncrementalBatchKind); err != nil {
			return err
		}
	}
	if l.plan.lookupProbe {
		// Nor is its kernel memory a sample of loads: a namespace's first
		// load measures more than its reloads (nftables' 40,000 Services
		// in results/plan-holdout/native-lookup-b: 41.9 MB on the first
		// load, 40.3 the median of 30), which the points' and sync
		// probes' medians are.
		l.base.KernelMemBytes = 0
		l.syncLine = fmt.Sprintf("%-16s %6d services: lookup probe, %d rules, %d bytes, loaded once",
			l.plan.dataplane, l.plan.services, sync.Payload.Rules, sync.Payload.Bytes)
		return nil
	}
	if l.plan.syncProbe {
		l.syncLine = fmt.Sprintf("%-16s %6d services: sync probe, %d rules, %d bytes, %s",
			l.plan.dataplane, l.plan.services, sync.Payload.Rules, sync.Payload.Bytes, l.syncTimes(timed, incrementalTimed))
		return nil
	}
	l.syncLine = fmt.Sprintf("%-16s %6d services: %d rules, %d bytes, %s%s",
		l.plan.dataplane, l.plan.services, sync.Payload.Rules, sync.Payload.Bytes, l.syncTimes(timed, incrementalTimed), batchNote(l.base))
	return nil
}

// syncTimes is the setup line's full and incremental sync, each with its
// tool's CPU time where measured.
func (l *sweepLab) syncTimes(timed, incrementalTimed bool) string {
	return fmt.Sprintf("full sync %s%s, incremental %s%s", seconds(l.base.SyncFullS, timed), cpuNote(l.base.SyncFullCPUS),
		seconds(l.base.SyncIncrementalS, incrementalTimed), cpuNote(l.base.SyncIncrementalCPUS))
}

// logSyncLines logs every point's setup line in plan order (dataplane,
// then services), whatever order the points were set up in.
func logSyncLines(labs []*sweepLab, opts Options) {
	sorted := slices.Clone(labs)
	slices.SortFunc(sorted, func(a, b *sweepLab) int { return a.order - b.order })
	for _, l := range sorted {
		opts.logf("%s", l.syncLine)
	}
}

// memoryGrowth is the kernel memory the load since before took, or 0 (not
// measured) when it cannot be read or another process changed the
// machine's kernel memory meanwhile (procstat.MemoryReading.Growth), which
// it logs. A dataplane whose objects the kernel does not charge to the
// run's memory cgroup (dataplane.Info.UnchargedKernelMemory) has nothing
// to check its growth against: that growth is recorded unchecked. The
// xt_recent lists the load made (lists were there before it, -1 when not
// counted) are expected beside the charge (procstat's GrowthBesides).
func (l *sweepLab) memoryGrowth(before procstat.MemoryReading, err error, lists int) int64 {
	if err != nil {
		return 0
	}
	after, err := l.machine.KernelMemory()
	if err != nil {
		return 0
	}
	if info, ok := dataplane.Lookup(l.plan.dataplane); ok && info.UnchargedKernelMemory {
		before.HasOwn = false
	}
	var uncharged int64
	if now := l.recentLists(); lists >= 0 && now > lists {
		uncharged = int64(now-lists) * iptables.RecentListBytes(host.RecentHashBuckets())
	}
	grown, err := before.GrowthBesides(after, uncharged)
	if err != nil {
		l.logf("svclab: %s at %d services: kernel memory not measured on this load: %v", l.plan.dataplane, l.plan.services, err)
		return 0
	}
	return grown
}

// recentLists counts the xt_recent lists in the point's node namespace, -1
// where the dataplane cannot (apply.RecentLister) or the count fails.
func (l *sweepLab) recentLists() int {
	lister, ok := l.dp.(apply.RecentLister)
	if !ok {
		return -1
	}
	n, err := lister.RecentLists()
	if err != nil {
		return -1
	}
	return n
}

// resync removes the rules and loads them again, so every repetition times
// its own full and incremental sync (the gate needs samples, not copies).
func (l *sweepLab) resync(ctx context.Context, spec *scenario.Sweep) error {
	if err := l.dp.Reset(ctx); err != nil {
		return err
	}
	return l.load(ctx, spec, Options{})
}

// cpuNote is the full sync's CPU time for the setup line, when measured.
func cpuNote(cpu float64) string {
	if cpu == 0 {
		return ""
	}
	return " (CPU " + metric.FormatSeconds(cpu) + ")"
}

func seconds(s float64, measured bool) string {
	if !measured {
		return "not timed (above the scenario's limit)"
	}
	return metric.FormatSeconds(s)
}

// measurePoint probes every position of one point once and runs one
// throughput batch.
func measurePoint(ctx context.Context, l *sweepLab, spec *scenario.Sweep, rep int) ([]results.Point, error) {
	if l.plan.walkProbe {
		if err := l.reloadWalkProbe(ctx, spec, rep); err != nil {
			return nil, err
		}
		points, err := l.probePositions(ctx, spec, rep, throughput{}, pktRate{})
		l.markProbeExtras(points)
		return points, err
	}
	if l.plan.syncProbe {
		return l.measureSyncProbe(ctx, spec, rep)
	}
	if spec.SyncEachRepetition && rep > 1 {
		if err := l.resync(ctx, spec); err != nil {
			return nil, err
		}
	}
	tput, err := l.throughput(ctx, spec)
	if err != nil {
		return nil, err
	}
	var flows pktRate
	if spec.PacketRate && packetsApply(l.plan.dataplane) {
		last := netip.AddrPortFrom(scenario.SweepTargetIPs["last"], uint16(scenario.SweepTargetPort.Port))
		r, err := l.lab.PacketRate(ctx, last, tput.connPerSec/2)
		if err != nil {
			return nil, fmt.Errorf("%s at %d services: %w", l.plan.dataplane, l.plan.services, err)
		}
		flows = pktRate{flowsPerSec: r.FlowsPerSec, cpuUsPerPacket: r.CPUMicrosPerPacket}
	}
	return l.probePositions(ctx, spec, rep, tput, flows)
}

// probePositions probes every position of the point once, with the
// repetition's throughput and packet rate (zero when not measured).
func (l *sweepLab) probePositions(ctx context.Context, spec *scenario.Sweep, rep int, tput throughput, flows pktRate) ([]results.Point, error) {
	var out []results.Point
	for _, pos := range spec.Positions {
		p, err := l.probe(ctx, spec, pos, rep)
		if err != nil {
			return out, err
		}
		p.ConnPerSec, p.CPUusPerConn = tput.connPerSec, tput.cpuUsPerConn
		if flows != (pktRate{}) {
			p.FlowsPerSec = flows.flowsPerSec
			p.Extra = map[string]float64{"cpu_us_per_packet": flows.cpuUsPerPacket}
		}
		out = append(out, p)
	}
	return out, nil
}

// probe measures connect latency for one position.
func (l *sweepLab) probe(ctx context.Context, spec *scenario.Sweep, pos string, rep int) (results.Point, error) {
	target := l.targetFor(pos, spec.Seed+uint64(rep))
	res, err := l.lab.Probe(ctx, traffic.ProbeSpec{Count: spec.Connections, Warmup: spec.Warmup, Target: target, CPU: spec.ProbeCPU})
	if err != nil {
		return results.Point{}, fmt.Errorf("%s at %d services, position %s: %w", l.plan.dataplane, l.plan.services, pos, err)
	}
	hist := stats.NewLatencyHistogram()
	for _, d := range res.Latencies {
		_ = hist.Record(d)
	}
	p := l.base
	p.Position, p.Repetition, p.Connections, p.Errors = pos, rep, len(res.Latencies), res.Errors
	p.P50us, p.P90us, p.P99us, p.P999us = stats.Micros(hist.Quantile(0.5)), stats.Micros(hist.Quantile(0.9)), stats.Micros(hist.Quantile(0.99)), stats.Micros(hist.Quantile(0.999))
	p.MeanUs = stats.Micros(hist.Mean())
	p.Histogram = hist
	return p, nil
}

// targetFor returns the address picker for a position: the target service,
// or (uniform) a random service out of all N, fillers answered by the sink
// (out of the reachable ones, l.uniform, when a mix shapes them).
func (l *sweepLab) targetFor(pos string, seed uint64) func(int) netip.AddrPort {
	if pos != scenario.PositionUniform {
		addr := netip.AddrPortFrom(scenario.SweepTargetIPs[pos], uint16(scenario.SweepTargetPort.Port))
		return func(int) netip.AddrPort { return addr }
	}
	rng := rand.New(rand.NewPCG(seed, 0x0171f))
	if l.uniform != nil {
		return func(int) netip.AddrPort { return l.uniform[rng.IntN(len(l.uniform))] }
	}
	n := l.model.Services.Len()
	return func(int) netip.AddrPort {
		s := l.model.Services.At(rng.IntN(n))
		return netip.AddrPortFrom(s.ClusterIP, uint16(s.Ports[0].Port))
	}
}

type throughput struct{ connPerSec, cpuUsPerConn float64 }

// pktRate is the packet-rate mode's knee (flows per second forwarded to the
// last target) and CPU per forwarded packet.
type pktRate struct{ flowsPerSec, cpuUsPerPacket float64 }

// throughput opens a batch of new connections to the last target as fast as
// four workers can and reads the machine's CPU time around it.
func (l *sweepLab) throughput(ctx context.Context, spec *scenario.Sweep) (throughput, error) {
	before, err := l.machine.CPUSeconds()
	if err != nil {
		return throughput{}, err
	}
	sum, err := l.lab.Connect(ctx, traffic.Spec{Target: netip.AddrPortFrom(scenario.SweepTargetIPs["last"], 80),
		Connections: spec.ThroughputConnections, Concurrency: 4, Mode: traffic.ModeConnect}, nil)
	if err != nil {
		return throughput{}, fmt.Errorf("%s at %d services: throughput batch: %w", l.plan.dataplane, l.plan.services, err)
	}
	after, _ := l.machine.CPUSeconds()
	t := throughput{connPerSec: sum.ConnPerSec}
	if sum.Connections > sum.Errors {
		t.cpuUsPerConn = (after - before) * 1e6 / float64(sum.Connections-sum.Errors)
	}
	return t, nil
}

// summarize aggregates per-repetition records into points and fits.
func summarize(sc *scenario.Scenario, records []results.Record, complete bool) *results.Summary {
	points, fits := metric.Aggregate(records)
	return &results.Summary{Schema: results.SchemaVersion, Scenario: sc.Name, Kind: "sweep", Complete: complete, Points: points, Fits: fits,
		WalkProbes: metric.AggregateWalkProbes(records), SyncProbes: metric.AggregateSyncProbes(records),
		AddrTypeProbes: metric.AggregateAddrTypeProbes(records), RecentProbes: metric.AggregateRecentProbes(records)}
}

func partialSummary(sc *scenario.Scenario, w *results.Writer) *results.Summary {
	records, _, _ := results.ReadRecords(w.Dir())
	return summarize(sc, records, false)
}

// packetsApply says whether the packet-rate mode measures the dataplane:
// a socket LB translates connects, not raw packets.
func packetsApply(name string) bool {
	info, ok := dataplane.Lookup(name)
	return ok && !info.AtConnect
}
