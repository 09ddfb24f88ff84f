package driver

import (
	"math"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/svclab/svclab/sim/kube"
)

// gatherMetrics reads kube-proxy's own metrics from the registry
// metrics.RegisterMetrics registered them in (component-base's
// legacyregistry, which the kube-proxy binary serves on /metrics): every
// kubeproxy_* family, as a kube.Metrics.
func gatherMetrics() (kube.Metrics, error) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	m := kube.Metrics{Time: time.Now()}
	if err != nil {
		return m, err
	}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "kubeproxy_") {
			continue
		}
		m.Families = append(m.Families, convertFamily(f))
	}
	return m, nil
}

func convertFamily(f *dto.MetricFamily) kube.MetricFamily {
	out := kube.MetricFamily{Name: f.GetName(), Type: strings.ToLower(f.GetType().String())}
	for _, metric := range f.GetMetric() {
		s := kube.MetricSample{}
		for _, l := range metric.GetLabel() {
			if s.Labels == nil {
				s.Labels = map[string]string{}
			}
			s.Labels[l.GetName()] = l.GetValue()
		}
		switch {
		case metric.Counter != nil:
			s.Value = metric.GetCounter().GetValue()
		case metric.Gauge != nil:
			s.Value = metric.GetGauge().GetValue()
		case metric.Histogram != nil:
			s.Histogram = convertHistogram(metric.GetHistogram())
		case metric.Untyped != nil:
			s.Value = metric.GetUntyped().GetValue()
		}
		out.Samples = append(out.Samples, s)
	}
	return out
}

func convertHistogram(h *dto.Histogram) *kube.Histogram {
	out := &kube.Histogram{Count: h.GetSampleCount(), Sum: h.GetSampleSum()}
	for _, b := range h.GetBucket() {
		if math.IsInf(b.GetUpperBound(), +1) {
			continue
		}
		out.Buckets = append(out.Buckets, kube.Bucket{LE: b.GetUpperBound(), Count: b.GetCumulativeCount()})
	}
	return out
}

// syncCounts are the counters a sync report is the difference of.
type syncCounts struct {
	full              uint64
	programmed        uint64
	programmedSeconds float64
}

// gatherCounts reads the full-sync count and the network programming
// histogram's count and sum from kube-proxy's metrics.
func gatherCounts() (syncCounts, error) {
	m, err := gatherMetrics()
	if err != nil {
		return syncCounts{}, err
	}
	full, _ := m.Histogram(kube.MetricFullSyncDuration)
	prog, _ := m.Histogram(kube.MetricNetworkProgramming)
	return syncCounts{full: full.Count, programmed: prog.Count, programmedSeconds: prog.Sum}, nil
}
