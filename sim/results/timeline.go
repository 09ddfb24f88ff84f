package results

// TypeTimeline is the record type of a timeline run (TimelineRun).
const TypeTimeline = "timeline"

// Outcome counts what became of connections and datagrams.
type Outcome struct {
	// Served: answered by (TCP) or delivered to (UDP) an endpoint the
	// Service had then.
	Served int `json:"served"`
	// Refused: the connection was reset or the datagram's send refused
	// (an ICMP error: the rules reject the Service without endpoints).
	Refused int `json:"refused"`
	// TimedOut: no answer within the timeout (TCP).
	TimedOut int `json:"timed_out"`
	// Lost: datagrams sent that arrived nowhere (UDP).
	Lost int `json:"lost"`
	// Blackholed: reached the address of a deleted pod (the lab keeps a
	// sink there that counts them).
	Blackholed int `json:"blackholed"`
	// Misdelivered: reached a live pod that was no endpoint of the Service
	// then (a removed endpoint, a deleted Service).
	Misdelivered int `json:"misdelivered"`
}

// Add adds o's counts to a.
func (a *Outcome) Add(o Outcome) {
	a.Served += o.Served
	a.Refused += o.Refused
	a.TimedOut += o.TimedOut
	a.Lost += o.Lost
	a.Blackholed += o.Blackholed
	a.Misdelivered += o.Misdelivered
}

// Total is every counted connection or datagram.
func (a Outcome) Total() int {
	return a.Served + a.Refused + a.TimedOut + a.Lost + a.Blackholed + a.Misdelivered
}

// TimelineSecond is one second of a timeline run: its outcomes per
// traffic generator (index in the scenario's timeline.traffic) and which
// endpoints served.
type TimelineSecond struct {
	Second   int            `json:"second"`
	Traffic  []Outcome      `json:"traffic"`
	Endpoint map[string]int `json:"endpoints,omitempty"` // "IP" → served or blackholed there
}

// What a TimelineEvent's probe latency measures.
const (
	ProbeAdded   = "first served by a new endpoint"
	ProbeRemoved = "last delivered to a removed endpoint"
	ProbeCreated = "first connection to the new service served"
	ProbeRestart = "first connection served after the restart"
)

// LastedUntil says the event's old state (a removed endpoint still
// reached) lasted until within a second of next (the next event's time in
// seconds): it was never left while nothing else changed.
func (e TimelineEvent) LastedUntil(next float64) bool {
	return e.Lasted || e.Probe == ProbeRemoved && e.ProbeLatencyS != nil && e.AtS+*e.ProbeLatencyS >= next-1
}

// TimelineEvent is one event of a timeline run and what followed it.
type TimelineEvent struct {
	Index int     `json:"index"` // in the scenario's timeline.events
	What  string  `json:"what"`  // e.g. "scale default/statsd to 0"
	AtS   float64 `json:"at_s"`
	// ProbeLatencyS is svclab's probe's programming latency: from the
	// event until the first connection or datagram that reached the new
	// state (a new endpoint or Service served), or until the last one that
	// still reached the old state (a removed endpoint); absent when the new
	// state was never reached in the window (Converged false).
	ProbeLatencyS *float64 `json:"probe_latency_s,omitempty"`
	Converged     bool     `json:"converged"`
	// Lasted says the old state (a removed endpoint still reached) lasted
	// until the next event (within a second of it), which may have ended it.
	Lasted bool `json:"lasted_until_next_event,omitempty"`
	// Probe says what the latency measures ("first served by a new
	// endpoint", "last delivered to a removed endpoint", ...).
	Probe string `json:"probe"`
	// After are the outcomes from the event to the next one (or the end).
	After Outcome `json:"after"`
	// KubeProxyLatencyS are kube-proxy's own network programming latencies
	// (network_programming_duration_seconds), the mean of each sync from
	// the event to the next that observed any (kube-proxy engine only).
	KubeProxyLatencyS []float64 `json:"kube_proxy_latency_s,omitempty"`
	// KubeProxyObserved counts the observations behind KubeProxyLatencyS
	// (each sync's mean is of its own count); KubeProxyMeanS is the mean
	// of them all.
	KubeProxyObserved int     `json:"kube_proxy_observed,omitempty"`
	KubeProxyMeanS    float64 `json:"kube_proxy_mean_s,omitempty"`
	// AppliedLateS is how long after its time the lab applied the event,
	// when it had to wait (a restart waits for the previous restart's
	// first sync); a restart's probe latency is counted from then.
	AppliedLateS float64 `json:"applied_late_s,omitempty"`
	// LatenciesS are the probe latencies of each converged change of the
	// event (ProbeLatencyS is their largest).
	LatenciesS []float64 `json:"latencies_s,omitempty"`
}

// TimelineSync is one sync of the rules during a timeline run.
type TimelineSync struct {
	AtS       float64 `json:"at_s"`
	DurationS float64 `json:"duration_s"`
	Full      bool    `json:"full"`
	// Restart marks the first sync of a (re)started kube-proxy (the
	// native engine: the sync a restart event made); Services is how many
	// Services it programmed (native engine: every sync).
	Restart  bool `json:"restart,omitempty"`
	Services int  `json:"services,omitempty"`
	// Programmed counts kube-proxy's network programming latency
	// observations in this sync, ProgrammingS is their mean (kube-proxy
	// engine only).
	Programmed   int     `json:"programmed,omitempty"`
	ProgrammingS float64 `json:"programming_s,omitempty"`
}

// ConntrackSample counts the node's conntrack entries to one Service (by
// its clusterIP and port) at a time, and those whose reply comes from a
// deleted pod's address.
type ConntrackSample struct {
	AtS      float64 `json:"at_s"`
	Service  string  `json:"service"`
	Entries  int     `json:"entries"`
	ToDelete int     `json:"to_deleted_pods"`
}

// TimelineRun is one timeline measured on one dataplane.
type TimelineRun struct {
	Dataplane        string            `json:"dataplane"`
	Engine           string            `json:"engine"`
	KubeProxyVersion string            `json:"kube_proxy_version,omitempty"`
	DurationS        float64           `json:"duration_s"`
	Traffic          []string          `json:"traffic"` // each generator, e.g. "UDP default/statsd:8125 500/s from pod"
	Totals           []Outcome         `json:"totals"`  // per generator
	Seconds          []TimelineSecond  `json:"seconds"`
	Events           []TimelineEvent   `json:"events"`
	Syncs            []TimelineSync    `json:"syncs,omitempty"`
	Conntrack        []ConntrackSample `json:"conntrack,omitempty"`
	// Blackholed and Misdelivered total every generator's.
	Blackholed   int `json:"blackholed"`
	Misdelivered int `json:"misdelivered"`
	// ProbeLatencyP50S and P99S summarise the events' probe latencies
	// (converged events only); 0 when none converged.
	ProbeLatencyP50S float64 `json:"probe_latency_p50_s"`
	ProbeLatencyP99S float64 `json:"probe_latency_p99_s"`
	// Unconverged counts changes whose new state was never reached.
	Unconverged int `json:"unconverged"`
	// ChangeLatenciesS are the probe latencies of every converged change
	// (the samples of ProbeLatencyP50S and P99S; compare and gate read them).
	ChangeLatenciesS []float64 `json:"change_latencies_s,omitempty"`
}
