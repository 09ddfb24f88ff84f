package results

import (
	"encoding/json"

	"github.com/svclab/svclab/sim/stats"
)

// SchemaVersion is the version of the result schema this svclab writes.
const SchemaVersion = 1

// Record types in results.jsonl.
const (
	TypeMeta     = "meta"
	TypeFairness = "fairness"
	TypePoint    = "point"
	TypeSync     = "sync"
	// TypeWalkProbe is a sweep's walk-probe measurement (sweep.walkProbe):
	// a Point whose Services is the probe's KUBE-SERVICES rule count, kept
	// apart from the sweep's points (it loads no full ruleset).
	TypeWalkProbe = "walk_probe"
	// TypeSyncProbe is a sweep's sync-probe measurement (sweep.syncProbe):
	// a Point with the ruleset's size, full sync time and kernel memory of
	// one load and no traffic measurements, kept apart from the points.
	TypeSyncProbe = "sync_probe"
	// TypeAddrTypeProbe is a sweep's addrtype-probe measurement
	// (sweep.addrTypeProbe): a walk probe with Extra[ExtraAddrTypeRules]
	// addrtype rules added, kept apart from the walk probes.
	TypeAddrTypeProbe = "addrtype_probe"
	// TypeRecentProbe is a sweep's recent-probe measurement
	// (sweep.recentProbe): a walk probe with Extra[ExtraRecentTables]
	// xt_recent lists created ahead of one that Extra[ExtraRecentRules]
	// rules check, kept apart from the walk probes.
	TypeRecentProbe = "recent_probe"
	// TypeInterrupted closes a run that a signal stopped.
	TypeInterrupted = "interrupted"
	// TypeChainListWalk is the chain-list walk timed again at the end of
	// a run (Record.ChainListWalk; meta.json's was timed at its start):
	// PoolChainListWalks joins them.
	TypeChainListWalk = "chain_list_walk"
)

// ExtraP50SD is the Extra key of a summary's walk probe that holds the
// sample standard deviation of the p50 over its repetitions (the median
// is P50us, their count Repetitions).
const ExtraP50SD = "p50_us_sd"

// ExtraAddrTypeRules is the Extra key of an addrtype probe that holds
// how many addrtype rules it added to its walk probe.
const ExtraAddrTypeRules = "addrtype_rules"

// ExtraRecentTables and ExtraRecentRules are the Extra keys of a recent
// probe that hold how many xt_recent lists it created ahead of the one its
// rules check, and how many rules check that one.
const (
	ExtraRecentTables = "recent_tables"
	ExtraRecentRules  = "recent_rules"
)

// ExtraTailUs and ExtraTailSD are the Extra keys of a summary's walk
// probe that hold the median and the sample standard deviation of its
// repetitions' tail, p99 − p50 in µs.
const (
	ExtraTailUs = "tail_us"
	ExtraTailSD = "tail_us_sd"
)

// Interruption says that a run was stopped before it finished, by what,
// and what it had completed.
type Interruption struct {
	// Signal is the signal's name, e.g. "interrupt" or "terminated".
	Signal string `json:"signal"`
	// At is when the run stopped (RFC 3339).
	At string `json:"at"`
	// Completed says what was measured before the stop, e.g.
	// "2 of 4 fairness measurements".
	Completed string `json:"completed"`
}

// Record is one line of results.jsonl. Exactly one payload field is set,
// matching Type.
type Record struct {
	Schema   int          `json:"schema"`
	Type     string       `json:"type"`
	Meta     *Meta        `json:"meta,omitempty"`
	Fairness *FairnessRun `json:"fairness,omitempty"`
	// Interrupted is set on the last record of an interrupted run.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	Point       *Point        `json:"point,omitempty"`
	// Timeline is set on a TypeTimeline record.
	Timeline *TimelineRun `json:"timeline,omitempty"`
	// Plan is set on a TypePlan record (see Plan).
	Plan *Plan `json:"plan,omitempty"`
	// ChainListWalk is set on a TypeChainListWalk record.
	ChainListWalk []ChainListStep `json:"chain_list_walk,omitempty"`
}

// Meta describes where and how a run was measured.
type Meta struct {
	Schema        int               `json:"schema"`
	Run           string            `json:"run"`
	Scenario      string            `json:"scenario"`
	ScenarioHash  string            `json:"scenario_hash"`
	Kind          string            `json:"kind"` // "fairness" or "sweep"
	Started       string            `json:"started"`
	Kernel        string            `json:"kernel"`
	GuestKernel   string            `json:"guest_kernel,omitempty"` // set when measured in a user-mode-linux guest
	CPU           string            `json:"cpu"`
	CPUs          int               `json:"cpus"`
	GoVersion     string            `json:"go_version"`
	GitCommit     string            `json:"git_commit"`
	SvclabVersion string            `json:"svclab_version"`
	Tools         map[string]string `json:"tools"` // tool → version line, e.g. "iptables-nft": "iptables v1.8.9 (nf_tables)"
	Hostname      string            `json:"hostname,omitempty"`
	// Engine wrote the rules: "native" (svclab's renderer) or "kube-proxy"
	// (kube-proxy's own proxier); KubeProxyVersion is whose rules they are.
	Engine           string `json:"engine,omitempty"`
	KubeProxyVersion string `json:"kube_proxy_version,omitempty"`
	// PlantRules is the planted slowdown the run measured with (svclab run
	// --plant-rules): never-matching rules in front of every packet the
	// node forwards; 0 when none.
	PlantRules int `json:"plant_rules,omitempty"`
	// KernelMemoryCheck is the memory cgroup whose charges each load's
	// kernel memory growth was checked against ("cgroup v1 group DIR" or
	// "cgroup2 group DIR"); empty when the growth went unchecked.
	KernelMemoryCheck string `json:"kernel_memory_check,omitempty"`
	// ProbeCPU is the CPU a sweep's first-packet probes were pinned to
	// (the scenario's sweep.probeCPU); absent when the scheduler placed
	// them.
	ProbeCPU *int `json:"probe_cpu,omitempty"`
	// ChainListWalk is what one step of iptables-nft-restore's chain list
	// took on this machine at each list length (lab/chainlist), measured
	// when a sweep times a dataplane whose restore keeps that list
	// (dataplane.Info.ChainListRestore), on each payload's layout
	// (ChainListStep.Layout); the planner prices its syncs' steps with it.
	ChainListWalk []ChainListStep `json:"chain_list_walk,omitempty"`
	// ChainDumpWalk is what one step of the kernel's walk through a
	// table's chains took while it dumped them to nft, with the chains
	// loaded packed (ChainDumpPacked) and spread over four times the slab
	// pages (ChainDumpSpread), at each of lab/nftdump's lengths: measured
	// when a sweep with sync probes (sweep.syncProbe) times a dataplane
	// whose tool lists the kernel's chains before every change
	// (dataplane.Info.ChainDump); the planner prices
	// its incremental syncs' walk with it (absent before 2026-12-06).
	ChainDumpWalk []ChainListStep `json:"chain_dump_walk,omitempty"`
	// AnonymousSetWalk is what one step of each of the kernel's two walks
	// per anonymous set took on this machine while it loaded tables of
	// two-endpoint Services (lab/nftsetwalk), at each of its sizes:
	// measured when a sweep with sync probes times nftables; the planner
	// prices a full sync's anonymous sets with it (absent before
	// 2026-12-06).
	AnonymousSetWalk []AnonymousSetStep `json:"anonymous_set_walk,omitempty"`
}

// AnonymousSetStep is the time of one step of one of the kernel's walks
// per anonymous set at one list length (sim/cost.AnonymousSetWork):
// naming's (AnonymousSetNaming: one set of the table passed by an added
// anonymous set's walks of its set list; Length the sets, named and
// anonymous, the table held) or binding's (AnonymousSetBinding: one commit-list
// entry passed; Length the entries each walk passed), for a table of
// Services synthetic Services: the median over the rounds, and the
// fastest and the slowest round's.
type AnonymousSetStep struct {
	Walk         string  `json:"walk"`
	Services     int     `json:"services"`
	Length       int     `json:"length"`
	NsPerStep    float64 `json:"ns_per_step"`
	MinNsPerStep float64 `json:"min_ns_per_step"`
	MaxNsPerStep float64 `json:"max_ns_per_step"`
	Rounds       int     `json:"rounds"`
	// AddedSets is how many anonymous maps each timed transaction added.
	AddedSets int `json:"added_sets"`
}

// The walks an anonymous-set step is timed on (AnonymousSetStep.Walk).
// AnonymousSetListing is no walk of the kernel's: what a transaction on a
// table pays once for each anonymous set the table holds (nft's cache of
// its sets), Length the sets.
const (
	AnonymousSetNaming  = "name"
	AnonymousSetBinding = "bind"
	AnonymousSetListing = "list"
)

// ChainListStep is the time of one step of a list walk at one list
// length: of iptables-nft-restore's chain list (Meta.ChainListWalk: one
// strcmp against the next node's name, and the loads to reach it), or of
// the kernel's chain list as it resumes a chain dump to nft
// (Meta.ChainDumpWalk: one chain object passed).
type ChainListStep struct {
	Chains    int     `json:"chains"`
	NsPerStep float64 `json:"ns_per_step"`
	// Layout is the payload whose list the walk was laid out as:
	// ChainListFull (also when empty: meta.json written before 2026-12-05
	// timed that layout only) or ChainListPartial.
	Layout string `json:"layout,omitempty"`
	// NodeBytes is the distance between consecutive nodes of the list
	// timed (absent before 2026-12-05, when it was 352).
	NodeBytes int `json:"node_bytes,omitempty"`
	// ColdNsPerStep and WarmNsPerStep split NsPerStep: a step over a node
	// none of the sim/iptables.WarmWindow walks before passed, and one
	// over a node one of them did (absent before 2026-12-05).
	ColdNsPerStep float64 `json:"cold_ns_per_step,omitempty"`
	WarmNsPerStep float64 `json:"warm_ns_per_step,omitempty"`
	// MinNsPerStep and MaxNsPerStep are the fastest and the slowest
	// round's mean step (NsPerStep is the mean over the rounds): how far
	// this machine's long-list steps wandered while they were timed
	// (absent from runs recorded before these fields, 2026-12-05).
	MinNsPerStep float64 `json:"min_ns_per_step,omitempty"`
	MaxNsPerStep float64 `json:"max_ns_per_step,omitempty"`
	// ChainsPerMessage is, for a chain dump's step (ChainDumpPacked,
	// ChainDumpSpread), the chains the kernel put in one netlink message
	// of nft's receive buffer: the walk resumes from the list's start for
	// every message.
	ChainsPerMessage float64 `json:"chains_per_message,omitempty"`
}

// The layouts a chain-list walk is timed on: the list a full sync's
// payload builds, and the one kube-proxy's partial sync builds (its
// nodes lie further apart: lab/chainlist.Layouts).
const (
	ChainListFull    = "full"
	ChainListPartial = "partial"
	// ChainDumpPacked and ChainDumpSpread are the layouts of the kernel's
	// chain objects a chain dump's walk is timed on (Meta.ChainDumpWalk):
	// loaded into a slab cache without holes, 32 to a page, and into one
	// whose pages each have 8 holes, 8 to a page
	// (results/nft-chain-placement).
	ChainDumpPacked = "nft-dump-packed"
	ChainDumpSpread = "nft-dump-spread"
)

// OfLayout says whether the step was timed on layout's list.
func (s ChainListStep) OfLayout(layout string) bool {
	return s.Layout == layout || (s.Layout == "" && layout == ChainListFull)
}

// Endpoint is one endpoint's result in a fairness run.
type Endpoint struct {
	Endpoint string  `json:"endpoint"` // "IP:port"
	Pod      string  `json:"pod"`
	Count    uint64  `json:"count"`    // connections the pod's server accepted (or answered, in keep-alive mode: requests)
	DNAT     uint64  `json:"dnat"`     // the kernel's packet counter on the endpoint's DNAT rule
	Share    float64 `json:"share"`    // Count / total
	ShareLo  float64 `json:"share_lo"` // 95% Wilson interval
	ShareHi  float64 `json:"share_hi"` //
	Expected float64 `json:"expected"` // the share the rules promise
	// Sources counts the pod's accepted connections by source address as
	// the pod saw it: the client's own when the path preserves it, the
	// node's when the node masqueraded.
	Sources map[string]uint64 `json:"sources,omitempty"`
	// Connections is, in keep-alive mode (where Count is requests), the
	// connections the pod's server accepted: the kernel's choices.
	Connections uint64 `json:"connections,omitempty"`
}

// Rule is one endpoint-selection rule of the service chain and its kernel
// counter: for iptables, a statistic rule (or the final fall-through rule).
type Rule struct {
	Chain       string  `json:"chain"`
	Index       int     `json:"index"`       // 1-based rule number in the chain
	Target      string  `json:"target"`      // the KUBE-SEP chain it jumps to
	Probability float64 `json:"probability"` // nominal; 1 for the last rule
	Packets     uint64  `json:"packets"`
	Reached     uint64  `json:"reached"`  // packets that reached this rule
	Observed    float64 `json:"observed"` // Packets / Reached
	ObservedLo  float64 `json:"observed_lo"`
	ObservedHi  float64 `json:"observed_hi"`
	P           float64 `json:"p"` // binomial test of Observed against Probability
}

// FairnessRun is one service's split measured on one dataplane.
type FairnessRun struct {
	Dataplane   string     `json:"dataplane"`
	Service     string     `json:"service"` // "ns/name:port"
	ClusterIP   string     `json:"cluster_ip"`
	Mode        string     `json:"mode"` // connect, http, keepalive
	Connections int        `json:"connections"`
	Requests    int        `json:"requests"`
	Errors      int        `json:"errors"`
	Endpoints   []Endpoint `json:"endpoints"`
	ChiSquare   float64    `json:"chi2"`
	ChiSquareP  float64    `json:"chi2_p"`
	Jain        float64    `json:"jain"`
	MaxMinRatio float64    `json:"max_min_ratio"`
	Rules       []Rule     `json:"rules"`
	// ChainEntered is the kernel's count of new connections that entered
	// the service chain (its KUBE-SERVICES rule's packet counter).
	ChainEntered uint64 `json:"chain_entered,omitempty"`
	// KernelCounter names what Endpoint.DNAT counts: "iptables DNAT rule
	// packets" or "ipvs real-server connections"; empty when the dataplane
	// keeps no per-endpoint counter (nftables: kube-proxy's rules have none).
	KernelCounter string `json:"kernel_counter,omitempty"`
	// CountsAgree says the servers' counts equal the kernel's counters.
	CountsAgree bool    `json:"counts_agree"`
	ConnPerSec  float64 `json:"conn_per_s"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	// From, Target and Family are the run's traffic path (scenario
	// fairness.from, .target, .family); empty for a pod's IPv4 ClusterIP
	// run recorded before they existed. Address is what the connections
	// went to and Source the client address they came from.
	From    string `json:"from,omitempty"`
	Target  string `json:"target,omitempty"`
	Family  string `json:"family,omitempty"`
	Address string `json:"address,omitempty"`
	Source  string `json:"source,omitempty"`
	// ExpectDropped says the rules promise to drop every connection (a
	// source outside loadBalancerSourceRanges, externalTrafficPolicy:
	// Local on a node without a local endpoint); Errors then counts the
	// drops and Endpoints lists no expected share.
	ExpectDropped bool `json:"expect_dropped,omitempty"`
	// ConnChiSquareP is, in keep-alive mode, the chi-square p-value of the
	// connections' split (Endpoint.Connections), beside ChiSquareP of the
	// requests': the kernel balances connections, and requests follow them.
	ConnChiSquareP *float64 `json:"conn_chi2_p,omitempty"`
	// LeftOut are the service's other endpoints, which the rules do not
	// route this traffic to (not ready and not serving-terminating, or
	// remote under a Local policy), with what their pods served: zero
	// when the rules hold.
	LeftOut []Endpoint `json:"left_out,omitempty"`
}

// Point is one measurement of a sweep: a dataplane at a service count and
// target position, one repetition (in results.jsonl) or the median over
// repetitions (in summary.json).
type Point struct {
	Dataplane        string  `json:"dataplane"`
	Services         int     `json:"services"`
	Position         string  `json:"position"`
	Repetition       int     `json:"repetition,omitempty"`
	Repetitions      int     `json:"repetitions,omitempty"`
	Connections      int     `json:"connections"`
	Errors           int     `json:"errors"`
	P50us            float64 `json:"p50_us"`
	P90us            float64 `json:"p90_us"`
	P99us            float64 `json:"p99_us"`
	P999us           float64 `json:"p999_us"`
	MeanUs           float64 `json:"mean_us"`
	CPUusPerConn     float64 `json:"cpu_us_per_conn"`
	ConnPerSec       float64 `json:"conn_per_s"`
	FlowsPerSec      float64 `json:"flows_per_s,omitempty"`
	SyncFullS        float64 `json:"sync_full_s"`
	SyncIncrementalS float64 `json:"sync_incremental_s"`
	// SyncBatchS is the partial sync that carried SyncBatch endpoint
	// changes at once (sweep.incrementalBatch); 0 when not timed.
	SyncBatchS float64 `json:"sync_batch_s,omitempty"`
	SyncBatch  int     `json:"sync_batch,omitempty"`
	// SyncBatchKind is what the batch's changes were: "" for endpoint
	// changes, "services" for Service creations
	// (sweep.incrementalBatchKind).
	SyncBatchKind string `json:"sync_batch_kind,omitempty"`
	// SyncFullCPUS is the full sync's CPU time (user plus system) of the
	// tool that applied it (nft -f, iptables-restore), from its rusage:
	// what SyncFullS measures less the time a busy machine made the tool
	// wait; 0 when no tool process applied the rules (IPVS, eBPF, the
	// kube-proxy engine).
	SyncFullCPUS float64 `json:"sync_full_cpu_s,omitempty"`
	// SyncIncrementalCPUS is the incremental sync's CPU time (user plus
	// system) of the tool that applied it, as SyncFullCPUS: what
	// SyncIncrementalS measures less the time the tool waited; 0 when not
	// measured.
	SyncIncrementalCPUS float64 `json:"sync_incremental_cpu_s,omitempty"`
	// SyncFullUserS and SyncIncrementalUserS are the user part of
	// SyncFullCPUS and SyncIncrementalCPUS: the tool's own work (parsing
	// the payload, building the rules); the rest of the CPU time is the
	// kernel's. iptables-legacy-restore's partial restore spends its user
	// time on the partial payload's rules and its kernel time on the
	// whole table it replaces (sim/cost PartialComposition). 0 when not
	// measured.
	SyncFullUserS        float64                 `json:"sync_full_user_s,omitempty"`
	SyncIncrementalUserS float64                 `json:"sync_incremental_user_s,omitempty"`
	Rules                int                     `json:"rules"`
	Bytes                int                     `json:"bytes"`
	Lines                int                     `json:"lines"`
	KernelMemBytes       int64                   `json:"kernel_mem_bytes"`
	RulesEvaluated       int                     `json:"rules_evaluated,omitempty"` // per first packet, from the tracer
	Histogram            *stats.LatencyHistogram `json:"histogram,omitempty"`
	Payload              *RuleSetStats           `json:"payload,omitempty"`
	Extra                map[string]float64      `json:"extra,omitempty"`
	Raw                  json.RawMessage         `json:"raw,omitempty"`
}

// Fit is a least-squares line of one metric against service count.
type Fit struct {
	Dataplane         string     `json:"dataplane"`
	Position          string     `json:"position"`
	Metric            string     `json:"metric"`
	SlopeNsPerService float64    `json:"slope_ns_per_service"`
	SlopeCI95         [2]float64 `json:"slope_ci95"`
	InterceptUs       float64    `json:"intercept_us"`
	R2                float64    `json:"r2"`
	N                 int        `json:"n"`
	// NsPerRule is the slope divided by the rules a first packet evaluates
	// per added service (iptables only).
	NsPerRule float64 `json:"ns_per_rule,omitempty"`
}

// Summary is summary.json.
type Summary struct {
	Schema   int    `json:"schema"`
	Run      string `json:"run"`
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	// Complete is true only when every planned measurement was made (see
	// SetCompleteness); false when built from a partial results.jsonl.
	Complete bool `json:"complete"`
	// Planned and Measured count the plan's measurements and those made.
	Planned  int           `json:"planned,omitempty"`
	Measured int           `json:"measured,omitempty"`
	Runs     []FairnessRun `json:"runs,omitempty"`
	Points   []Point       `json:"points,omitempty"`
	// WalkProbes are a sweep's walk-probe measurements (medians over
	// repetitions), apart from Points.
	WalkProbes []Point `json:"walk_probes,omitempty"`
	// SyncProbes are a sweep's sync-probe measurements (medians over
	// repetitions), apart from Points.
	SyncProbes []Point `json:"sync_probes,omitempty"`
	// AddrTypeProbes are a sweep's addrtype-probe measurements (medians
	// over repetitions, as WalkProbes'), apart from Points.
	AddrTypeProbes []Point `json:"addrtype_probes,omitempty"`
	// RecentProbes are a sweep's recent-probe measurements (medians over
	// repetitions, as WalkProbes'), apart from Points.
	RecentProbes []Point `json:"recent_probes,omitempty"`
	// Timelines are the timeline runs, one per dataplane.
	Timelines []TimelineRun `json:"timelines,omitempty"`
	Fits      []Fit         `json:"fits,omitempty"`
	// BesideRuns are the other svclab runs, labs and tests seen live on
	// the machine while this run measured (none: it had the machine to
	// itself as far as svclab knows).
	BesideRuns []BesideRun `json:"beside_runs,omitempty"`
	// OutsideLoad is the CPU the machine spent outside the run's own
	// processes while it measured; nil for a run recorded before svclab
	// watched it, or where /proc could not be read.
	OutsideLoad *OutsideLoad `json:"outside_load,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
}

// RuleSetStats is the size of a rule set as sim/render counts it, recorded
// with a point. Its JSON is render.Stats's; it is declared here so that the
// results schema does not depend on the renderers.
type RuleSetStats struct {
	Lines    int `json:"lines"`
	Bytes    int `json:"bytes"`
	Rules    int `json:"rules"`
	Chains   int `json:"chains"`
	Sets     int `json:"sets,omitempty"`
	Elements int `json:"elements,omitempty"`
}
