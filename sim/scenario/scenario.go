package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
)

// Scenario is a decoded, defaulted and validated scenario. Its fields are
// read-only: to change a run's settings use the With… methods, which
// re-validate and return a new Scenario.
type Scenario struct {
	// Name is the scenario's name (the file's base name when it sets none).
	Name        string
	Description string
	// Source is the path, or "embedded:NAME".
	Source string
	// Raw is the file's bytes, for hashing and recording.
	Raw []byte
	// Synthetic asks for generated filler services; nil when absent.
	Synthetic *Synthetic
	// Placement is where the explicit services go among the synthetic ones
	// (first, middle, last or an index; default first).
	Placement string
	// Fairness configures a fairness run; nil when the file has none.
	Fairness *Fairness
	// Sweep configures a scaling sweep; nil when the file has none.
	Sweep *Sweep
	// Timeline configures a run in motion; nil when the file has none.
	Timeline *Timeline
	// KubeProxy is the engine and the kube-proxy release (defaulted).
	KubeProxy KubeProxy
	// Gate are the primary comparisons svclab ab gates on; empty: its
	// defaults (see sim/ab).
	Gate []GateRule
	// Objects are the Kubernetes objects the scenario's services come
	// from (the file itself, or cluster.objects); nil when none.
	Objects *objects.Objects

	f          file // the validated YAML, defaults filled
	cluster    model.Cluster
	podCIDR    netip.Prefix
	fillerCIDR netip.Prefix
	explicit   model.Slice
	objectsRaw []byte
	overrides  []override
}

// Synthetic asks for generated filler services.
type Synthetic struct {
	Services            int
	EndpointsPerService int
	Seed                uint64
	// Mix shapes the services; nil for uniform ClusterIP services.
	Mix *model.Mix
}

// Fairness configures a fairness run: new connections to each explicit
// service, counted per endpoint by the servers and by the kernel.
type Fairness struct {
	// Dataplanes are known dataplane names (see sim/dataplane), at least one.
	Dataplanes      []string
	Connections     int
	Concurrency     int
	Rate            float64 // connections per second; 0 is as fast as possible
	Mode            string  // connect, http or keepalive
	RequestsPerConn int
	ClientOnNode    bool
	// Scheduler is the IPVS scheduler (rr, wrr, lc, sh, mh); "" is rr.
	Scheduler string
	// Paths is where the connections start and what they target.
	Paths FairnessPaths
}

// Sweep configures a scaling sweep.
type Sweep struct {
	Services            []int
	EndpointsPerService int
	Dataplanes          []string
	Positions           []string
	Connections         int
	Warmup              int
	Repetitions         int
	Concurrency         int
	PacketRate          bool
	Seed                uint64
	// MaxServices caps the service count per dataplane.
	MaxServices map[string]int
	// SyncLimit: full syncs are timed up to this many services per dataplane.
	SyncLimit map[string]int
	// IncrementalLimit does the same for incremental syncs.
	IncrementalLimit map[string]int
	// ThroughputConnections is the batch size for conn/s and CPU per connection.
	ThroughputConnections int
	// Scheduler is the IPVS scheduler; "" is rr.
	Scheduler string
	// SyncEachRepetition reloads the rules in every repetition.
	SyncEachRepetition bool
	// WalkProbe lists KUBE-SERVICES sizes at which each rule-walk dataplane
	// also measures a walk probe: every KUBE-SERVICES rule of that many
	// services but the chains of the targets alone (render/iptables'
	// WalkProbe), so the cost of a long walk is measured without loading
	// the full ruleset.
	WalkProbe []int
	// WalkProbeReload reloads the walk probes in every repetition, as the
	// rules are with SyncEachRepetition (which it defaults to): a long
	// walk's cost depends on the state each load leaves. False keeps each
	// probe's first load, which a short calibration cannot afford to
	// repeat (an 80,000-service iptables-legacy probe takes 8 s to reload).
	WalkProbeReload bool
	// AddrTypeProbe lists walk-probe sizes (each also in WalkProbe) at
	// which each rule-walk dataplane also measures that walk probe with as
	// many addrtype rules added to the filter table's KUBE-EXTERNAL-SERVICES
	// (kube-proxy's REJECT of a NodePort without endpoints), so svclab plan
	// prices an addrtype match against a plain rule.
	AddrTypeProbe []int
	// RecentProbe, when above 0, is how many xt_recent lists each
	// rule-walk dataplane's recent probe creates ahead of the one its
	// rules check: the smallest walk probe with those lists and
	// render/iptables' RecentProbeRules rules looking the last one up, so
	// svclab plan prices a step of xt_recent's walk of its lists (ClientIP
	// affinity) against the walk probe alone.
	RecentProbe int
	// SyncProbe lists service counts at which each dataplane also times
	// full syncs alone, without traffic: the sweep's ruleset of that many
	// services, loaded once per repetition, within SyncLimit, then one
	// change's incremental sync within IncrementalLimit. A sync that
	// grows faster than a line past the measured sizes (libiptc's restore:
	// 5,000 → 50,000 services took 17 times as long) is measured where the
	// traffic points would take too long. A dataplane that looks services
	// up in a map then also probes the uniform position on that ruleset,
	// when the sweep does (a lookup probe: the lookup's growth with the
	// map past the points).
	SyncProbe []int
	// LookupProbe lists service counts at which each dataplane that looks
	// services up in a map loads the sweep's ruleset of that many services
	// once, its syncs and kernel memory not measured, and probes the
	// uniform position in every repetition: a sync probe's lookup probe
	// without its reloads, which a short calibration cannot afford
	// (nftables' 80,000 Services take about 9 s to load). A size the
	// dataplane sync-probes is left to that probe.
	LookupProbe []int
	// IncrementalBatch, when 2 or more, also times a partial sync that
	// carries this many endpoint changes at once (one endpoint added to
	// each of as many filler services), after the one-change incremental
	// sync: what each change kube-proxy's sync loop batches adds to a sync.
	IncrementalBatch int
	// IncrementalBatchKind is what the batch's changes are: BatchEndpoints
	// (one endpoint added to each of as many filler services) or
	// BatchServices (as many new Services created, each with
	// endpointsPerService endpoints).
	IncrementalBatchKind string
	// ProbeCPU, when set, is the CPU every first-packet probe's connects
	// are made from (lab/traffic's ProbeSpec.CPU); nil leaves the probe
	// wherever the scheduler puts it.
	ProbeCPU *int
}

// The kinds of change sweep.incrementalBatchKind batches.
const (
	BatchEndpoints = "endpoints"
	BatchServices  = results.BatchServices
)

// typed builds the typed form of a validated file.
func typed(f file, source string, raw []byte) *Scenario {
	s := &Scenario{Name: f.Name, Description: f.Description, Source: source, Raw: raw, Placement: f.Placement, f: f,
		KubeProxy: KubeProxy{Engine: f.KubeProxy.Engine, Version: render.KubeProxyVersion(f.KubeProxy.Version), FeatureGates: maps.Clone(f.KubeProxy.FeatureGates),
			Flags: proxyFlags(f.KubeProxy)}}
	s.cluster = model.DefaultCluster()
	s.cluster.ClusterCIDR = netip.MustParsePrefix(f.Cluster.ClusterCIDR)
	s.cluster.ServiceCIDR = netip.MustParsePrefix(f.Cluster.ServiceCIDR)
	s.cluster.ClusterCIDRv6 = netip.MustParsePrefix(f.Cluster.ClusterCIDRv6)
	s.cluster.ServiceCIDRv6 = netip.MustParsePrefix(f.Cluster.ServiceCIDRv6)
	s.cluster.MasqueradeBit = *f.Cluster.MasqueradeBit
	s.Gate = gateRules(f)
	s.podCIDR = netip.MustParsePrefix(f.Cluster.PodCIDR)
	s.fillerCIDR = netip.MustParsePrefix(f.Cluster.FillerCIDR)
	for _, fs := range f.Services {
		s.explicit = append(s.explicit, toModelService(fs))
	}
	s.applyObjects(&f)
	if y := f.Synthetic; y != nil {
		s.Synthetic = &Synthetic{Services: y.Services, EndpointsPerService: y.EndpointsPerService, Seed: y.Seed, Mix: y.Mix.model()}
	}
	if r := f.Fairness; r != nil {
		s.Fairness = &Fairness{Dataplanes: slices.Clone(r.Dataplanes), Connections: *r.Connections,
			Concurrency: *r.Concurrency, Rate: r.Rate, Mode: r.Mode, RequestsPerConn: *r.RequestsPerConn,
			ClientOnNode: r.ClientOnNode, Scheduler: r.Scheduler, Paths: fairnessPathsOf(r)}
	}
	if w := f.Sweep; w != nil {
		s.Sweep = &Sweep{Services: slices.Clone(w.Services), EndpointsPerService: *w.EndpointsPerService,
			Dataplanes: slices.Clone(w.Dataplanes), Positions: slices.Clone(w.Positions),
			Connections: *w.Connections, Warmup: *w.Warmup, Repetitions: *w.Repetitions,
			Concurrency: *w.Concurrency, PacketRate: w.PacketRate, Seed: w.Seed,
			MaxServices: cloneMap(w.MaxServices), SyncLimit: cloneMap(w.SyncLimit),
			IncrementalLimit: cloneMap(w.IncrementalLimit), ThroughputConnections: *w.ThroughputConnections,
			Scheduler: w.Scheduler, SyncEachRepetition: w.SyncEachRepetition, WalkProbe: slices.Clone(w.WalkProbe), AddrTypeProbe: slices.Clone(w.AddrTypeProbe), RecentProbe: w.RecentProbe, SyncProbe: slices.Clone(w.SyncProbe), LookupProbe: slices.Clone(w.LookupProbe), IncrementalBatch: w.IncrementalBatch,
			IncrementalBatchKind: batchKindOrDefault(w.IncrementalBatchKind),
			WalkProbeReload:      w.SyncEachRepetition}
		if w.WalkProbeReload != nil {
			s.Sweep.WalkProbeReload = *w.WalkProbeReload
		}
		if w.ProbeCPU != nil {
			cpu := *w.ProbeCPU
			s.Sweep.ProbeCPU = &cpu
		}
	}
	s.Timeline = timelineOf(&f)
	return s
}

func cloneMap(m map[string]int) map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Hash identifies what was run: the SHA-256 of the file's bytes, and, when
// With… overrides were applied, of those overrides too (so a run with
// --connections 100 does not pass for one of the file as written).
func (s *Scenario) Hash() string {
	h := sha256.New()
	h.Write(s.Raw)
	if s.objectsRaw != nil && !bytes.Equal(s.objectsRaw, s.Raw) {
		h.Write([]byte("\x00objects "))
		h.Write(s.objectsRaw)
	}
	for _, o := range s.overrides {
		if !o.unhashed {
			h.Write([]byte("\x00override " + o.desc))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Dataplanes returns every dataplane the scenario's fairness and sweep
// sections use, each once, in order.
func (s *Scenario) Dataplanes() []string {
	var out []string
	if s.Fairness != nil {
		out = append(out, s.Fairness.Dataplanes...)
	}
	if s.Sweep != nil {
		out = append(out, s.Sweep.Dataplanes...)
	}
	if s.Timeline != nil {
		out = append(out, s.Timeline.Dataplanes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
