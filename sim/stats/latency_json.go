package stats

import (
	"encoding/json"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// latencyJSON is the stored form of a LatencyHistogram. HDR is the standard
// HdrHistogram V2 compressed encoding (base64 of zlib-compressed run-length
// counts): a few hundred bytes for a typical run, where the dense Snapshot
// counts array would be about 28,000 numbers. Any HdrHistogram tool (Java,
// Python, the Go HistogramLogReader) can decode it.
type latencyJSON struct {
	Unit              string `json:"unit"`
	LowestNs          int64  `json:"lowest_ns"`
	HighestNs         int64  `json:"highest_ns"`
	SignificantDigits int64  `json:"significant_digits"`
	Count             int64  `json:"count"`
	Clamped           int64  `json:"clamped,omitempty"`
	HDR               string `json:"hdr"`
}

// MarshalJSON encodes the histogram compactly; see UnmarshalJSON.
func (l *LatencyHistogram) MarshalJSON() ([]byte, error) {
	encoded, err := l.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode latency histogram: %w", err)
	}
	return json.Marshal(latencyJSON{
		Unit:              "ns",
		LowestNs:          l.h.LowestTrackableValue(),
		HighestNs:         l.h.HighestTrackableValue(),
		SignificantDigits: l.h.SignificantFigures(),
		Count:             l.h.TotalCount(),
		Clamped:           l.clamped,
		HDR:               string(encoded),
	})
}

// UnmarshalJSON decodes what MarshalJSON wrote. It rejects a histogram of
// another geometry (which Merge could not combine exactly) and one whose
// decoded count differs from the stored count.
func (l *LatencyHistogram) UnmarshalJSON(data []byte) error {
	var stored latencyJSON
	if err := json.Unmarshal(data, &stored); err != nil {
		return fmt.Errorf("decode latency histogram: %w", err)
	}
	h, err := hdrhistogram.Decode([]byte(stored.HDR))
	if err != nil {
		return fmt.Errorf("decode latency histogram: hdr field: %w", err)
	}
	want := newLatencyHDR()
	if h.LowestTrackableValue() != want.LowestTrackableValue() ||
		h.HighestTrackableValue() != want.HighestTrackableValue() ||
		h.SignificantFigures() != want.SignificantFigures() {
		return fmt.Errorf("decode latency histogram: geometry %d..%dns with %d digits, want %d..%dns with %d digits",
			h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(),
			want.LowestTrackableValue(), want.HighestTrackableValue(), want.SignificantFigures())
	}
	if h.TotalCount() != stored.Count {
		return fmt.Errorf("decode latency histogram: hdr holds %d values but count says %d", h.TotalCount(), stored.Count)
	}
	if stored.Clamped < 0 || stored.Clamped > stored.Count {
		return fmt.Errorf("decode latency histogram: clamped %d not in [0, %d]", stored.Clamped, stored.Count)
	}
	l.h, l.clamped = h, stored.Clamped
	return nil
}
