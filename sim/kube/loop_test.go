package kube

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLoopRequestPeriods(t *testing.T) {
	for _, tc := range []struct {
		name              string
		req               string
		wantMin, wantSync time.Duration
	}{
		{"iptables defaults", `{"mode":"iptables"}`, time.Second, 30 * time.Second},
		{"nftables defaults", `{"mode":"nftables"}`, time.Second, 30 * time.Second},
		{"ipvs defaults", `{"mode":"ipvs"}`, 0, 30 * time.Second},
		{"set", `{"mode":"nftables","minSyncPeriod":"250ms","syncPeriod":"1m"}`, 250 * time.Millisecond, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r LoopRequest
			if err := json.Unmarshal([]byte(tc.req), &r); err != nil {
				t.Fatal(err)
			}
			minSync, sync := r.Periods()
			if minSync != tc.wantMin || sync != tc.wantSync {
				t.Errorf("Periods() = %v, %v; want %v, %v", minSync, sync, tc.wantMin, tc.wantSync)
			}
		})
	}
}

// The embedded Request and Op are flattened: a loop request is a Request
// document with two more fields, an object event is an Op document.
func TestLoopDocumentsFlatten(t *testing.T) {
	b, err := json.Marshal(LoopRequest{Request: Request{Mode: ModeIPTables, NodeName: "n"}, MinSyncPeriod: metav1.Duration{Duration: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"mode":"iptables"`) || !strings.Contains(string(b), `"minSyncPeriod":"1s"`) {
		t.Errorf("loop request JSON %s: want mode and minSyncPeriod at the top level", b)
	}
	var ev LoopEvent
	if err := json.Unmarshal([]byte(`{"action":"delete","object":{"kind":"Service","metadata":{"name":"a"}}}`), &ev); err != nil {
		t.Fatal(err)
	}
	if kind, err := Kind(ev.Object); ev.Action != Delete || err != nil || kind != "Service" {
		t.Errorf("event = %q %q (%v); want delete Service", ev.Action, kind, err)
	}
}

func TestStampTriggerTime(t *testing.T) {
	es := &discoveryv1.EndpointSlice{}
	at := time.Date(2026, 12, 2, 1, 2, 3, 456789000, time.FixedZone("x", 3600))
	StampTriggerTime(es, at)
	got, err := time.Parse(time.RFC3339Nano, es.Annotations[v1.EndpointsLastChangeTriggerTime])
	if err != nil || !got.Equal(at) {
		t.Errorf("annotation %q (%v); want %v", es.Annotations[v1.EndpointsLastChangeTriggerTime], err, at)
	}
}

func TestMetricsHistogramAndQuantile(t *testing.T) {
	bounds := func(counts ...uint64) []Bucket {
		var bs []Bucket
		for i, c := range counts {
			bs = append(bs, Bucket{LE: float64(i + 1), Count: c})
		}
		return bs
	}
	m := Metrics{Families: []MetricFamily{
		{Name: MetricNetworkProgramming, Type: "histogram", Samples: []MetricSample{
			{Labels: map[string]string{"ip_family": "IPv4"}, Histogram: &Histogram{Count: 4, Sum: 6, Buckets: bounds(1, 2, 4)}},
			{Labels: map[string]string{"ip_family": "IPv6"}, Histogram: &Histogram{Count: 4, Sum: 6, Buckets: bounds(1, 2, 4)}},
		}},
		{Name: MetricConntrackDeleted, Type: "counter", Samples: []MetricSample{{Value: 2}, {Value: 3}}},
	}}
	h, ok := m.Histogram(MetricNetworkProgramming)
	if !ok || h.Count != 8 || h.Sum != 12 || h.Buckets[2].Count != 8 {
		t.Fatalf("merged histogram = %+v, %v; want count 8, sum 12, last bucket 8", h, ok)
	}
	if v, ok := m.Value(MetricConntrackDeleted); !ok || v != 5 {
		t.Errorf("counter = %v, %v; want 5", v, ok)
	}
	if _, ok := m.Histogram(MetricConntrackDeleted); ok {
		t.Errorf("a counter read as a histogram")
	}
	for _, tc := range []struct {
		q, want float64
	}{{0, 0}, {0.25, 1}, {0.5, 2}, {0.75, 2.5}, {1, 3}} {
		if got := h.Quantile(tc.q); got != tc.want {
			t.Errorf("Quantile(%v) = %v; want %v", tc.q, got, tc.want)
		}
	}
	if got := (Histogram{}).Quantile(0.5); got != 0 {
		t.Errorf("empty Quantile = %v; want 0", got)
	}
}
