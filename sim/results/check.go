package results

import (
	"fmt"
	"strconv"
)

// BatchServices is a point's sync_batch_kind when its batched partial
// sync created Services (sweep.incrementalBatchKind: services); none means
// endpoint changes.
const BatchServices = "services"

// MaxValue bounds every measured number a record may hold: no latency (µs),
// rate (per second), CPU time (µs) or sync time (s) svclab measures comes
// near 10¹² (11 days in µs, 31,000 years in seconds), and a report would
// print a larger one as +Inf.
const MaxValue = 1e12

// check refuses values no measurement can produce: a negative or huge
// latency, rate, CPU or sync time, a p-value or Jain index outside [0, 1].
// The error names the record, the field and the value.
func (r Record) check() error {
	switch {
	case r.Type == TypePoint && r.Point != nil:
		p := r.Point
		what := fmt.Sprintf("point %s/%d/%s repetition %d", p.Dataplane, p.Services, p.Position, p.Repetition)
		if p.SyncBatchKind != "" && p.SyncBatchKind != BatchServices {
			return fmt.Errorf("%s: sync_batch_kind %q: unknown (want none, for endpoint changes, or %q)", what, p.SyncBatchKind, BatchServices)
		}
		return checkFields(what, []field{
			{"p50_us", p.P50us, MaxValue}, {"p90_us", p.P90us, MaxValue}, {"p99_us", p.P99us, MaxValue},
			{"p999_us", p.P999us, MaxValue}, {"mean_us", p.MeanUs, MaxValue}, {"cpu_us_per_conn", p.CPUusPerConn, MaxValue},
			{"conn_per_s", p.ConnPerSec, MaxValue}, {"flows_per_s", p.FlowsPerSec, MaxValue},
			{"sync_full_s", p.SyncFullS, MaxValue}, {"sync_incremental_s", p.SyncIncrementalS, MaxValue},
			{"sync_full_cpu_s", p.SyncFullCPUS, MaxValue}, {"sync_incremental_cpu_s", p.SyncIncrementalCPUS, MaxValue},
			{"sync_batch_s", p.SyncBatchS, MaxValue},
			{"sync_batch", float64(p.SyncBatch), MaxValue},
			{"connections", float64(p.Connections), MaxValue}, {"errors", float64(p.Errors), MaxValue},
		})
	case r.Type == TypeFairness && r.Fairness != nil:
		f := r.Fairness
		return checkFields(fmt.Sprintf("fairness %s %s", f.Dataplane, f.Service), []field{
			{"p50_us", f.P50us, MaxValue}, {"p99_us", f.P99us, MaxValue}, {"conn_per_s", f.ConnPerSec, MaxValue},
			{"chi2_p", f.ChiSquareP, 1}, {"jain", f.Jain, 1}, {"conn_chi2_p", connP(f), 1},
			{"connections", float64(f.Connections), MaxValue}, {"errors", float64(f.Errors), MaxValue},
		})
	}
	return nil
}

// field is one number of a record with its upper bound (the lower is 0).
type field struct {
	name  string
	v     float64
	limit float64
}

func checkFields(what string, fields []field) error {
	for _, f := range fields {
		if f.v >= 0 && f.v <= f.limit { // false for NaN too
			continue
		}
		return fmt.Errorf("%s: %s %s: impossible (must be between 0 and %s)", what, f.name,
			strconv.FormatFloat(f.v, 'g', -1, 64), strconv.FormatFloat(f.limit, 'g', -1, 64))
	}
	return nil
}

// seen finds records given twice: a sweep point's repetition measured
// again, or a line equal to an earlier one.
type seen struct {
	lines map[string]int
	reps  map[string]int
}

// again returns an error when the record on line n repeats an earlier
// one.
func (s *seen) again(r Record, line string, n int) error {
	if s.lines == nil {
		s.lines, s.reps = map[string]int{}, map[string]int{}
	}
	if p := r.Point; r.Type == TypePoint && p != nil && p.Repetition > 0 {
		key := fmt.Sprintf("point %s/%d/%s repetition %d", p.Dataplane, p.Services, p.Position, p.Repetition)
		if first, ok := s.reps[key]; ok {
			return fmt.Errorf("%s again (first on line %d): records given twice would count as more samples", key, first)
		}
		s.reps[key] = n
	}
	if first, ok := s.lines[line]; ok {
		return fmt.Errorf("the same record as line %d: records given twice would count as more samples", first)
	}
	s.lines[line] = n
	return nil
}

// connP is the connections' chi-square p-value, 0 when not recorded.
func connP(f *FairnessRun) float64 {
	if f.ConnChiSquareP == nil {
		return 0
	}
	return *f.ConnChiSquareP
}
