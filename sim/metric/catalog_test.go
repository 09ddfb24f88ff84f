package metric

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// notMetrics are numeric record fields that are not measurements.
var notMetrics = []string{"services", "repetition", "repetitions", "connections", "errors", "total", "dof", "chi2", "requests", "sync_batch"}

// setByJSON returns a value of type T whose field with JSON name name is v
// (converted to the field's kind), and whether there is such a field.
func setByJSON[T any](name string, v float64) (T, bool) {
	var x T
	rv := reflect.ValueOf(&x).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if strings.Split(rv.Type().Field(i).Tag.Get("json"), ",")[0] != name {
			continue
		}
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.Float64:
			f.SetFloat(v)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(v))
		default:
			return x, false
		}
		return x, true
	}
	return x, false
}

// TestCatalogReadsTheFieldItNames: every accessor reads the record field
// whose JSON name is the metric's name, and every numeric field of a sweep
// point or fairness run is a metric or listed as not one.
func TestCatalogReadsTheFieldItNames(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if seen[m.Name] {
			t.Errorf("%s twice in the catalog", m.Name)
		}
		seen[m.Name] = true
		if m.Label == "" || m.BenchUnit == "" || m.NsPerUnit == 0 || m.Direction == 0 || (m.Point == nil && m.Fairness == nil) {
			t.Errorf("%s: incomplete entry %+v", m.Name, m)
		}
		if m.Point != nil && !slices.Contains(fromHistogram, m.Name) {
			p, ok := setByJSON[results.Point](m.Name, 42)
			if !ok || m.Point(p) != 42 {
				t.Errorf("%s: the sweep accessor does not read the field %s", m.Name, m.Name)
			}
		}
		if m.Fairness != nil {
			f, ok := setByJSON[results.FairnessRun](m.Name, 42)
			if !ok || m.Fairness(f) != 42 {
				t.Errorf("%s: the fairness accessor does not read the field %s", m.Name, m.Name)
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(results.Point{}), reflect.TypeOf(results.FairnessRun{})} {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			numeric := f.Type.Kind() == reflect.Float64 || f.Type.Kind() == reflect.Int || f.Type.Kind() == reflect.Int64
			if numeric && !seen[name] && !slices.Contains(notMetrics, name) {
				t.Errorf("%s.%s (%s) is neither in the catalog nor listed as not a metric", typ.Name(), f.Name, name)
			}
		}
	}
}

func TestAggregateAndSamples(t *testing.T) {
	sync := MustLookup(SyncFull)
	if got := sync.Samples([]float64{0.5, 0.5, 0, 0.7}); !slices.Equal(got, []float64{0.5, 0.7}) {
		t.Errorf("once-per-point samples %v, want the distinct measured values", got)
	}
	if got := MustLookup(P50).Aggregate([]float64{3, 0, 1, 2}); got != 2 {
		t.Errorf("median of measured values = %v, want 2 (the zero is not measured)", got)
	}
	if got := MustLookup(ChiSquareP).Aggregate([]float64{0, 0, 0.5}); got != 0 {
		t.Errorf("chi2_p median = %v, want 0 (a p-value of 0 is measured)", got)
	}
	if _, err := Lookup("p42_us"); err == nil {
		t.Error("unknown metric accepted")
	}
}

// fromHistogram are the metrics read from a point's latency histogram,
// not from a field of their own.
var fromHistogram = []string{P10}

func TestHistogramMetrics(t *testing.T) {
	h := stats.NewLatencyHistogram()
	for i := 1; i <= 100; i++ {
		_ = h.Record(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		name  string
		point results.Point
		want  float64
	}{
		{"p10 of 1..100 µs", results.Point{Histogram: h}, 10},
		{"no histogram is not measured", results.Point{P50us: 5}, 0},
	}
	for _, tt := range tests {
		got := MustLookup(P10).Point(tt.point)
		if math.Abs(got-tt.want) > 0.01 {
			t.Errorf("%s: p10_us = %v, want %v", tt.name, got, tt.want)
		}
	}
}
