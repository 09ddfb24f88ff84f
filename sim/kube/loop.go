package kube

import (
	"time"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The loop protocol: kube-proxy's own sync loop driven over time
// (`kube-proxy-driver loop`, run as root in the node's network namespace).
//
// Standard input: one LoopRequest (JSON), then a stream of LoopEvent
// documents (one JSON object a line), each applied the moment it is read.
// Standard output: one LoopOutput JSON line per report, flushed at once.
//
//  1. The driver builds the proxier with kube-proxy's NewProxier (real
//     iptables / nft / ipset / IPVS, real conntrack, in the current network
//     namespace), registers kube-proxy's metrics for the mode
//     (metrics.RegisterMetrics, as the kube-proxy binary does), hands it
//     the request's ServiceCIDRs and Objects (OnServiceAdd,
//     OnEndpointSliceAdd) and calls OnServiceSynced and
//     OnEndpointSlicesSynced: kube-proxy's first, full sync, reported as
//     the LoopSync with Index 0 (the time from starting the driver to this
//     report is the cold start: lab/kubeproxy's Loop.ColdStart).
//  2. It then starts the proxier's SyncLoop (kube-proxy's
//     BoundedFrequencyRunner with MinSyncPeriod and SyncPeriod) in a
//     goroutine, and applies each event as it arrives through kube-proxy's
//     informer handlers (OnServiceAdd/Update/Delete,
//     OnEndpointSliceAdd/Update/Delete; an update is handed the previous
//     object from the driver's store, as an informer would). The handlers
//     only queue the change and wake the runner: when the sync runs is
//     kube-proxy's decision. Every sync the runner runs is reported as one
//     LoopSync line (Index 1, 2, ...). A sync kube-proxy runs outside the
//     runner (iptables mode's canary monitor, forceSyncProxyRules, when
//     someone flushes kube-proxy's canary chains) is not reported as a line
//     but counts in the metrics.
//  3. A Control event "metrics" asks for a Metrics snapshot now (its Tag
//     is echoed). A "stop" event, or the end of standard input, makes the
//     driver write a final snapshot (Final set) and exit 0. The driver
//     leaves the rules it programmed in place (kube-proxy does too); the
//     namespace's owner removes them.
//
// An event the driver cannot apply (unknown kind, update or delete of an
// object it has not seen, bad JSON) ends the run: an error on standard
// error and exit status 1.
//
// Network programming latency: kube-proxy observes
// kubeproxy_network_programming_duration_seconds, per EndpointSlice change,
// as the time from the slice's endpoints.kubernetes.io/last-change-trigger-time
// annotation (v1.EndpointsLastChangeTriggerTime, RFC 3339 with
// nanoseconds; the EndpointSlice controller sets it in a cluster) to the
// end of the sync that programmed the change. The sender stamps it (see
// StampTriggerTime) with the wall-clock time of the event it models, on
// the same machine as the driver, so there is no clock drift. kube-proxy
// ignores stamps not after the proxier's construction (its
// EndpointsChangeTracker's start time) and slice deletions (a delete
// carries no new trigger time): only adds and updates after the start are
// observed.

// LoopRequest is the first document of a loop session: the node, mode and
// objects of a Request (Steps must be empty; OmitPayload and ValidatingFake
// do not apply: loop mode reports payload sizes only and always programs
// the kernel), and the sync loop's settings.
type LoopRequest struct {
	Request
	// MinSyncPeriod is kube-proxy's --min-sync-period: the least time
	// between the end of one sync and the start of the next. Zero (or
	// absent) means kube-proxy's default for the mode,
	// DefaultMinSyncPeriod.
	MinSyncPeriod metav1.Duration `json:"minSyncPeriod,omitempty"`
	// SyncPeriod is kube-proxy's --sync-period. In iptables and nftables
	// modes it is the runner's retry interval after a failed sync (and, in
	// iptables mode, how often the canary chains are checked); the periodic
	// full resync comes every proxyutil.FullSyncPeriod (1 h). In IPVS mode
	// it is also the periodic resync interval. Zero (or absent) means
	// kube-proxy's default, DefaultSyncPeriod.
	SyncPeriod metav1.Duration `json:"syncPeriod,omitempty"`
}

// DefaultSyncPeriod is kube-proxy's default --sync-period in every mode
// (pkg/proxy/apis/config/v1alpha1/defaults.go, SetDefaults_KubeProxyConfiguration,
// v1.34.4 to v1.37.2: IPTables, IPVS and NFTables SyncPeriod 30 s).
const DefaultSyncPeriod = 30 * time.Second

// DefaultMinSyncPeriod is kube-proxy's default --min-sync-period for
// mode: 1 s in iptables and nftables modes, 0 in IPVS mode (the same
// defaults.go sets IPTables and NFTables MinSyncPeriod to 1 s and leaves
// IPVS's at zero).
func DefaultMinSyncPeriod(mode string) time.Duration {
	if mode == ModeIPVS {
		return 0
	}
	return time.Second
}

// Periods returns the request's MinSyncPeriod and SyncPeriod with
// kube-proxy's defaults in place of zero.
func (r *LoopRequest) Periods() (minSync, sync time.Duration) {
	minSync, sync = r.MinSyncPeriod.Duration, r.SyncPeriod.Duration
	if minSync == 0 {
		minSync = DefaultMinSyncPeriod(r.Mode)
	}
	if sync == 0 {
		sync = DefaultSyncPeriod
	}
	return minSync, sync
}

// The Control values of a LoopEvent.
const (
	// ControlMetrics asks for a Metrics snapshot now.
	ControlMetrics = "metrics"
	// ControlStop ends the session: a final snapshot, then exit 0.
	ControlStop = "stop"
)

// LoopEvent is one document of the event stream: either an object event
// (Action and Object, as in an Op) or a Control event.
type LoopEvent struct {
	Op
	// Control is ControlMetrics or ControlStop; empty for an object event.
	Control string `json:"control,omitempty"`
	// Tag is echoed in the Metrics a ControlMetrics event asks for.
	Tag string `json:"tag,omitempty"`
}

// StampTriggerTime sets es's endpoints.kubernetes.io/last-change-trigger-time
// annotation to t (RFC 3339 with nanoseconds, UTC), as the EndpointSlice
// controller does, so that kube-proxy observes the change's network
// programming latency from t.
func StampTriggerTime(es *discoveryv1.EndpointSlice, t time.Time) {
	if es.Annotations == nil {
		es.Annotations = map[string]string{}
	}
	es.Annotations[v1.EndpointsLastChangeTriggerTime] = t.UTC().Format(time.RFC3339Nano)
}

// LoopOutput is one line of the driver's output: exactly one of Sync and
// Metrics is set.
type LoopOutput struct {
	Sync    *LoopSync `json:"sync,omitempty"`
	Metrics *Metrics  `json:"metrics,omitempty"`
}

// LoopSync reports one run of kube-proxy's syncProxyRules.
type LoopSync struct {
	// Index is 0 for the first (initial, full) sync, then counts the
	// runner's syncs.
	Index int `json:"index"`
	// Start is the wall-clock time the sync started.
	Start time.Time `json:"start"`
	// DurationNS is how long syncProxyRules took (including kube-proxy's
	// conntrack cleanup at its end).
	DurationNS int64 `json:"durationNs"`
	// Full reports a full sync: kube-proxy's own
	// sync_full_proxy_rules_duration_seconds counted it (iptables and
	// nftables modes); always true in IPVS mode, which has no partial
	// syncs.
	Full bool `json:"full"`
	// PayloadBytes is the size of what the sync handed to the kernel tools
	// (iptables-restore input, or nft transactions).
	PayloadBytes int `json:"payloadBytes"`
	// Programmed and ProgrammedSeconds are the number and the sum of the
	// kubeproxy_network_programming_duration_seconds observations this sync
	// made (one per EndpointSlice change with a trigger time).
	Programmed        uint64  `json:"programmed,omitempty"`
	ProgrammedSeconds float64 `json:"programmedSeconds,omitempty"`
	// Error is the sync's failure: the retry error syncProxyRules returned,
	// or a failed restore or transaction.
	Error string `json:"error,omitempty"`
}

// Duration returns DurationNS as a time.Duration.
func (s LoopSync) Duration() time.Duration { return time.Duration(s.DurationNS) }

// Names of kube-proxy's metrics (pkg/proxy/metrics) a Metrics snapshot
// holds, among the other kubeproxy_* families the mode registers.
const (
	MetricNetworkProgramming   = "kubeproxy_network_programming_duration_seconds"
	MetricSyncDuration         = "kubeproxy_sync_proxy_rules_duration_seconds"
	MetricFullSyncDuration     = "kubeproxy_sync_full_proxy_rules_duration_seconds"
	MetricPartialSyncDuration  = "kubeproxy_sync_partial_proxy_rules_duration_seconds"
	MetricSyncLastTimestamp    = "kubeproxy_sync_proxy_rules_last_timestamp_seconds"
	MetricConntrackDeleted     = "kubeproxy_conntrack_reconciler_deleted_entries_total"
	MetricConntrackSync        = "kubeproxy_conntrack_reconciler_sync_duration_seconds"
	MetricNoLocalEndpoints     = "kubeproxy_sync_proxy_rules_no_local_endpoints_total"
	MetricEndpointChangesTotal = "kubeproxy_sync_proxy_rules_endpoint_changes_total"
	MetricServiceChangesTotal  = "kubeproxy_sync_proxy_rules_service_changes_total"
)

// Metrics is a snapshot of kube-proxy's own Prometheus metrics, gathered
// from its registry (component-base's legacyregistry): every family whose
// name starts with "kubeproxy_" (the Go runtime and process families are
// left out). As on kube-proxy's /metrics, a labelled family with nothing
// observed yet (e.g. no network programming observation since the start)
// has no sample and is absent: Value and Histogram report false.
type Metrics struct {
	// Time is the wall-clock time of the snapshot.
	Time time.Time `json:"time"`
	// Tag echoes the ControlMetrics event's Tag.
	Tag string `json:"tag,omitempty"`
	// Final marks the snapshot written at the end of the session.
	Final bool `json:"final,omitempty"`
	// Syncs is the number of LoopSync lines written so far.
	Syncs    int            `json:"syncs"`
	Families []MetricFamily `json:"families"`
}

// MetricFamily is one metric and its samples (one per label set).
type MetricFamily struct {
	Name string `json:"name"`
	// Type is "counter", "gauge" or "histogram".
	Type    string         `json:"type"`
	Samples []MetricSample `json:"samples"`
}

// MetricSample is one label set's value (counter, gauge) or histogram.
type MetricSample struct {
	Labels    map[string]string `json:"labels,omitempty"`
	Value     float64           `json:"value,omitempty"`
	Histogram *Histogram        `json:"histogram,omitempty"`
}

// Histogram is a Prometheus histogram: Buckets are cumulative, by upper
// bound, without the +Inf bucket (its count is Count).
type Histogram struct {
	Count   uint64   `json:"count"`
	Sum     float64  `json:"sum"`
	Buckets []Bucket `json:"buckets,omitempty"`
}

// Bucket is one cumulative histogram bucket: Count observations ≤ LE.
type Bucket struct {
	LE    float64 `json:"le"`
	Count uint64  `json:"count"`
}

// Family returns the family named name, if the snapshot has it.
func (m *Metrics) Family(name string) (MetricFamily, bool) {
	for _, f := range m.Families {
		if f.Name == name {
			return f, true
		}
	}
	return MetricFamily{}, false
}

// Value returns the sum of a counter or gauge family's samples over all
// label sets (kube-proxy labels most by ip_family); false if absent.
func (m *Metrics) Value(name string) (float64, bool) {
	f, ok := m.Family(name)
	if !ok {
		return 0, false
	}
	var v float64
	for _, s := range f.Samples {
		v += s.Value
	}
	return v, true
}

// Histogram returns a histogram family's samples merged over all label
// sets (counts and sums added, buckets added by upper bound); false if
// absent or not a histogram.
func (m *Metrics) Histogram(name string) (Histogram, bool) {
	f, ok := m.Family(name)
	if !ok {
		return Histogram{}, false
	}
	var h Histogram
	found := false
	for _, s := range f.Samples {
		if s.Histogram == nil {
			continue
		}
		found = true
		h = h.merge(*s.Histogram)
	}
	return h, found
}

func (h Histogram) merge(o Histogram) Histogram {
	out := Histogram{Count: h.Count + o.Count, Sum: h.Sum + o.Sum}
	if len(h.Buckets) == 0 {
		out.Buckets = append([]Bucket(nil), o.Buckets...)
		return out
	}
	out.Buckets = append([]Bucket(nil), h.Buckets...)
	for i, b := range o.Buckets {
		if i < len(out.Buckets) && out.Buckets[i].LE == b.LE {
			out.Buckets[i].Count += b.Count
		}
	}
	return out
}

// Quantile estimates the q-quantile (0 ≤ q ≤ 1) of the observations by
// linear interpolation within the bucket that holds it, as Prometheus'
// histogram_quantile does; observations above the last bound report the
// last bound. It returns 0 for an empty histogram.
func (h Histogram) Quantile(q float64) float64 {
	if h.Count == 0 || len(h.Buckets) == 0 {
		return 0
	}
	rank := q * float64(h.Count)
	lower, below := 0.0, uint64(0)
	for _, b := range h.Buckets {
		if float64(b.Count) >= rank {
			in := b.Count - below
			if in == 0 {
				return b.LE
			}
			return lower + (b.LE-lower)*(rank-float64(below))/float64(in)
		}
		lower, below = b.LE, b.Count
	}
	return h.Buckets[len(h.Buckets)-1].LE
}
