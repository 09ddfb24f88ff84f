package stats

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/golden"
)

// report is what a svclab run might store: every result type of this
// package, to show the JSON field names and that no value breaks encoding
// (no NaN or ±Inf, even for a starved endpoint or too few samples).
type report struct {
	Fairness FairnessResult `json:"fairness"`
	Cascade  []CascadeStep  `json:"cascade"`
	Fit      Fit            `json:"fit"`
	Summary  Summary        `json:"summary"`
	Few      Summary        `json:"few_samples"`
	Compare  Comparison     `json:"compare"`
	Latency  latencyReport  `json:"latency"`
}

type latencyReport struct {
	Count     int64    `json:"count"`
	Quantiles []string `json:"quantiles"`
}

func buildReport(t *testing.T) report {
	t.Helper()
	fair, err := Fairness([]uint64{510, 490, 0}, []float64{0.5, 0.5, 0})
	checkErrorContains(t, err, "")
	cascade, err := Cascade([]uint64{340, 320, 340}, []float64{1.0 / 3, 0.5, 1})
	checkErrorContains(t, err, "")
	fit, err := LinearFit([]float64{100, 200, 500, 1000, 2000, 5000, 10000},
		[]float64{52.1, 53.9, 61.2, 71.8, 93.0, 153.7, 255.2})
	checkErrorContains(t, err, "")
	h := uniformMicros(t, 1000)
	return report{
		Fairness: fair,
		Cascade:  cascade,
		Fit:      fit,
		Summary:  Summarize([]float64{10.2, 11.5, 9.8, 10.9, 10.4, 11.1, 10.0, 10.7, 11.0, 10.3}, 0.95),
		Few:      Summarize([]float64{3, 1, 2}, 0.95),
		Compare:  Compare([]float64{10.2, 11.5, 9.8, 10.9, 10.4, 11.1}, []float64{10.6, 12.0, 11.8, 12.4, 11.3, 12.9, 11.7}, 0.05),
		Latency: latencyReport{Count: h.Count(), Quantiles: []string{
			h.Quantile(0.5).String(), h.Quantile(0.99).String(), h.Quantile(1).String()}},
	}
}

func TestGoldenReportJSON(t *testing.T) {
	got, err := json.MarshalIndent(buildReport(t), "", "  ")
	if err != nil {
		t.Fatalf("report does not encode as JSON: %v", err)
	}
	got = append(got, '\n')
	golden.Check(t, filepath.Join("testdata", "report.golden.json"), got)
}
