package stats

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// within checks got against want to HdrHistogram's 3 significant digits.
func within(t *testing.T, name string, got, want time.Duration) {
	t.Helper()
	if math.Abs(float64(got-want)) > 1e-3*float64(want) {
		t.Errorf("%s = %v, want %v ± 0.1%%", name, got, want)
	}
}

// uniformMicros records 1µs, 2µs, ..., n µs.
func uniformMicros(t testing.TB, n int) *LatencyHistogram {
	h := NewLatencyHistogram()
	for i := 1; i <= n; i++ {
		if err := h.Record(time.Duration(i) * time.Microsecond); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestLatencyQuantiles(t *testing.T) {
	h := uniformMicros(t, 10000)
	// The q-quantile of 1..10000 µs is the value of rank ceil(q·10000).
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{
		{0, time.Microsecond}, {0.5, 5000 * time.Microsecond}, {0.9, 9000 * time.Microsecond},
		{0.99, 9900 * time.Microsecond}, {0.999, 9990 * time.Microsecond}, {1, 10000 * time.Microsecond},
		{1.5, 10000 * time.Microsecond}, // clamped to 1
	} {
		within(t, "Quantile", h.Quantile(tc.q), tc.want)
	}
	if h.Count() != 10000 {
		t.Errorf("Count = %d, want 10000", h.Count())
	}
	// Mean of 1..n µs is (n+1)/2 µs.
	within(t, "Mean", h.Mean(), 5000500*time.Nanosecond)
	within(t, "Min", h.Min(), time.Microsecond)
	within(t, "Max", h.Max(), 10*time.Millisecond)
}

func TestLatencyPrecisionAtLowEnd(t *testing.T) {
	// A 20.3µs connect time keeps 3 significant digits (a 1µs lowest
	// discernible value would report 20.479µs).
	h := NewLatencyHistogram()
	if err := h.Record(20300 * time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	within(t, "Quantile(0.5)", h.Quantile(0.5), 20300*time.Nanosecond)
}

func TestLatencyRecordLimits(t *testing.T) {
	h := NewLatencyHistogram()
	if err := h.Record(-time.Second); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("Record(-1s) error = %v, want negative duration", err)
	}
	if err := h.Record(2 * time.Minute); err != nil {
		t.Fatalf("Record(2m): %v", err)
	}
	if h.Count() != 1 || h.Clamped() != 1 {
		t.Errorf("Count, Clamped = %d, %d; want 1, 1", h.Count(), h.Clamped())
	}
	within(t, "Quantile(1)", h.Quantile(1), LatencyMax)
	empty := NewLatencyHistogram()
	if empty.Quantile(0.5) != 0 || empty.Mean() != 0 || empty.Count() != 0 || empty.Quantile(math.NaN()) != 0 {
		t.Errorf("empty histogram: quantile %v, mean %v, count %d", empty.Quantile(0.5), empty.Mean(), empty.Count())
	}
}

func TestLatencyMerge(t *testing.T) {
	low, high := NewLatencyHistogram(), NewLatencyHistogram()
	for i := 1; i <= 10000; i++ {
		d := time.Duration(i) * time.Microsecond
		target := low
		if i > 5000 {
			target = high
		}
		if err := target.Record(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := high.Record(time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := low.Merge(high); err != nil {
		t.Fatal(err)
	}
	all := uniformMicros(t, 10000)
	if low.Count() != 10001 || low.Clamped() != 1 {
		t.Errorf("merged Count, Clamped = %d, %d; want 10001, 1", low.Count(), low.Clamped())
	}
	for _, q := range []float64{0.1, 0.5, 0.9} {
		within(t, "merged quantile", low.Quantile(q), all.Quantile(q))
	}
}

func TestLatencyJSONRoundTrip(t *testing.T) {
	h := uniformMicros(t, 10000)
	if err := h.Record(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 4096 {
		t.Errorf("encoded histogram is %d bytes, want a compact form (< 4 KiB)", len(data))
	}
	var back LatencyHistogram
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Count() != h.Count() || back.Clamped() != h.Clamped() || back.Mean() != h.Mean() {
		t.Errorf("round trip: count %d clamped %d mean %v; want %d %d %v",
			back.Count(), back.Clamped(), back.Mean(), h.Count(), h.Clamped(), h.Mean())
	}
	for _, q := range []float64{0, 0.25, 0.5, 0.99, 1} {
		if back.Quantile(q) != h.Quantile(q) {
			t.Errorf("round trip Quantile(%v) = %v, want %v", q, back.Quantile(q), h.Quantile(q))
		}
	}
	// A decoded histogram keeps working.
	if err := back.Merge(h); err != nil || back.Count() != 2*h.Count() {
		t.Errorf("merge after decode: %v, count %d", err, back.Count())
	}
}

func TestLatencyJSONErrors(t *testing.T) {
	good, _ := json.Marshal(uniformMicros(t, 10))
	var stored map[string]any
	if err := json.Unmarshal(good, &stored); err != nil {
		t.Fatal(err)
	}
	other, _ := hdrhistogram.New(1000, int64(time.Second), 2).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	tests := []struct {
		name   string
		change func(map[string]any)
		err    string
	}{
		{"bad hdr", func(m map[string]any) { m["hdr"] = "not base64!" }, "hdr field"},
		{"geometry", func(m map[string]any) { m["hdr"] = string(other) }, "geometry"},
		{"count", func(m map[string]any) { m["count"] = 11 }, "holds 10 values but count says 11"},
		{"clamped", func(m map[string]any) { m["clamped"] = 20 }, "clamped 20"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range stored {
				m[k] = v
			}
			tc.change(m)
			data, _ := json.Marshal(m)
			var h LatencyHistogram
			checkErrorContains(t, json.Unmarshal(data, &h), tc.err)
		})
	}
	var h LatencyHistogram
	checkErrorContains(t, json.Unmarshal([]byte(`[1]`), &h), "decode latency histogram")
}
