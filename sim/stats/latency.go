package stats

import (
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Geometry of every LatencyHistogram. Values are recorded in nanoseconds
// with a lowest discernible value of 1ns, so that the relative error is at
// most 0.1% (3 significant digits) over the whole range from 1µs to 60s; a
// lowest discernible value of 1µs would quantise the low end in 512ns steps,
// a 2.5% error at a 20µs connect time.
const (
	// LatencyMax is the largest latency a LatencyHistogram tracks; longer
	// ones are recorded as LatencyMax and counted by Clamped.
	LatencyMax = 60 * time.Second
	// LatencySignificantDigits is the histogram's precision.
	LatencySignificantDigits = 3
	latencyLowestNs          = 1
)

// LatencyHistogram records latencies from 1µs to 60s with 3 significant
// digits and answers percentile queries. It wraps an HdrHistogram, so
// recording is O(1) and takes no allocation. It is not safe for concurrent
// use: give each goroutine its own and Merge them.
type LatencyHistogram struct {
	h       *hdrhistogram.Histogram
	clamped int64
}

// NewLatencyHistogram returns an empty histogram (about 220 KB).
func NewLatencyHistogram() *LatencyHistogram {
	return &LatencyHistogram{h: newLatencyHDR()}
}

func newLatencyHDR() *hdrhistogram.Histogram {
	return hdrhistogram.New(latencyLowestNs, int64(LatencyMax), LatencySignificantDigits)
}

// Record adds one latency. A latency above LatencyMax is recorded as
// LatencyMax and counted by Clamped, so that timeouts still weigh on the
// tail. A negative latency is an error and is not recorded.
func (l *LatencyHistogram) Record(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("record latency %v: negative duration", d)
	}
	if d > LatencyMax {
		d = LatencyMax
		l.clamped++
	}
	return l.h.RecordValue(int64(d))
}

// Quantile returns the latency at quantile q in [0, 1] (0.5 is the median,
// 0.99 the 99th percentile): the smallest recorded value, to 3 significant
// digits, that at least a fraction q of the values do not exceed. q outside
// [0, 1] is clamped; 0 for an empty histogram or a NaN q.
func (l *LatencyHistogram) Quantile(q float64) time.Duration {
	if math.IsNaN(q) {
		return 0
	}
	q = math.Min(1, math.Max(0, q))
	return time.Duration(l.h.ValueAtQuantile(q * 100))
}

// Count returns the number of latencies recorded.
func (l *LatencyHistogram) Count() int64 {
	return l.h.TotalCount()
}

// Mean returns the mean latency (to the histogram's precision), 0 when
// empty.
func (l *LatencyHistogram) Mean() time.Duration {
	return time.Duration(math.Round(l.h.Mean()))
}

// Min returns the smallest latency recorded (to 3 significant digits), 0
// when empty.
func (l *LatencyHistogram) Min() time.Duration {
	return time.Duration(l.h.Min())
}

// Max returns the largest latency recorded (to 3 significant digits), 0
// when empty.
func (l *LatencyHistogram) Max() time.Duration {
	return time.Duration(l.h.Max())
}

// Clamped returns how many recorded latencies exceeded LatencyMax.
func (l *LatencyHistogram) Clamped() int64 {
	return l.clamped
}

// Merge adds every latency of other into l. other is not changed.
func (l *LatencyHistogram) Merge(other *LatencyHistogram) error {
	if dropped := l.h.Merge(other.h); dropped > 0 {
		return fmt.Errorf("merge latency histograms: %d values dropped", dropped)
	}
	l.clamped += other.clamped
	return nil
}
