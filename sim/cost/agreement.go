package cost

import (
	"fmt"
	"math"
	"strings"
)

// The "sim agrees with lab" check of issue 5: calibrate on points with
// N ≤ AgreementMaxN, predict p50 at the largest measured N, and be within
// AgreementTolerancePct of the measurement.
const (
	AgreementMaxN         = 10_000
	AgreementTolerancePct = 15.0
)

// FitPrediction is one fit's p50 prediction at the held-out N.
type FitPrediction struct {
	Range     FitRange `json:"range"`
	Points    int      `json:"points"`
	Predicted Estimate `json:"predicted_us"`
	ErrorPct  float64  `json:"error_pct"` // (predicted − measured) / measured × 100
	Within    bool     `json:"within"`    // |ErrorPct| ≤ AgreementTolerancePct
	// R2 is the line's R² (0 for a line through 2 points, or a constant).
	R2 float64 `json:"r2"`
	// Valid says the model claims to hold here: a line with an interval
	// and R² ≥ DefaultMinR2 (or a MapLookup constant).
	Valid bool `json:"valid"`
	// NsPerRule is the fitted cost per rule walked (LinearWalk only).
	NsPerRule *Estimate `json:"ns_per_rule,omitempty"`
}

// AgreementRow compares the model with the lab for one dataplane at the
// `last` position: a p50 predicted from points with N ≤ CalibrationMaxN
// against the p50 measured at the largest N.
type AgreementRow struct {
	Dataplane       string  `json:"dataplane"`
	Position        string  `json:"position"`
	CalibrationMaxN int     `json:"calibration_max_n"`
	Services        int     `json:"services"` // the held-out N
	MeasuredP50us   float64 `json:"measured_p50_us"`
	// Model is the fit over every calibration point (FitAll): the model
	// the check is about. UpperHalf is the alternative fit over the upper
	// half of the calibrated N (nil when it cannot be fitted).
	Model     FitPrediction  `json:"model"`
	UpperHalf *FitPrediction `json:"upper_half,omitempty"`
}

// AgreementTable runs the check for every dataplane of the run that has a
// `last` point above AgreementMaxN.
func AgreementTable(run *Run) ([]AgreementRow, error) {
	all, err := CalibrateRun(run, Options{MaxN: AgreementMaxN})
	if err != nil {
		return nil, fmt.Errorf("agreement check: %w", err)
	}
	upper, _ := CalibrateRun(run, Options{MaxN: AgreementMaxN, Range: FitUpperHalf})
	var rows []AgreementRow
	for _, dm := range all.Dataplanes {
		n, measured := heldOut(run, dm.Dataplane)
		if n <= AgreementMaxN {
			continue
		}
		row := AgreementRow{Dataplane: dm.Dataplane, Position: PositionLast, CalibrationMaxN: AgreementMaxN,
			Services: n, MeasuredP50us: measured, Model: fitPrediction(dm.P50, FitAll, n, measured)}
		if upper != nil {
			if udm, ok := upper.Dataplane(dm.Dataplane); ok {
				fp := fitPrediction(udm.P50, FitUpperHalf, n, measured)
				row.UpperHalf = &fp
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("agreement check: run %s has no last-position p50 above %d services", run.Source.Run, AgreementMaxN)
	}
	return rows, nil
}

// heldOut returns the largest N with a measured last-position p50, and it.
func heldOut(run *Run, dataplane string) (int, float64) {
	n, p50 := 0, 0.0
	for _, p := range run.Points {
		if p.Dataplane == dataplane && p.Position == PositionLast && p.P50us > 0 && p.Services > n {
			n, p50 = p.Services, p.P50us
		}
	}
	return n, p50
}

func fitPrediction(c CostCurve, r FitRange, n int, measured float64) FitPrediction {
	evals, _ := Evaluations(c.Lookup, PositionLast, n)
	fp := FitPrediction{Range: r, Points: c.Points, Predicted: c.Total(evals, n)}
	fp.ErrorPct = (fp.Predicted.Value - measured) / measured * 100
	fp.Within = math.Abs(fp.ErrorPct) <= AgreementTolerancePct
	if c.Lookup == MapLookup {
		fp.Valid = true
		return fp
	}
	if hasInterval(c.Line) {
		fp.R2 = c.Line.R2
	}
	fp.Valid = hasInterval(c.Line) && c.Line.R2 >= DefaultMinR2
	ns := c.PerEvaluation().Scale(1e3)
	fp.NsPerRule = &ns
	return fp
}

// AgreementMarkdown renders the rows as a Markdown table for the README.
func AgreementMarkdown(rows []AgreementRow) string {
	var b strings.Builder
	b.WriteString("| dataplane | calibrated on | predicted p50 at N (95% interval) | measured p50 | error | R² | ns/rule | within 15% |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		for _, fp := range r.fits() {
			fmt.Fprintf(&b, "| %s | %s | %s µs at %d | %.0f µs | %+.1f%% | %s | %s | %s |\n",
				r.Dataplane, fp.describe(r.CalibrationMaxN), formatInterval(fp.Predicted, 0), r.Services,
				r.MeasuredP50us, fp.ErrorPct, fp.r2(), fp.nsPerRule(), fp.verdict())
		}
	}
	return b.String()
}

func (r AgreementRow) fits() []FitPrediction {
	if r.UpperHalf == nil {
		return []FitPrediction{r.Model}
	}
	return []FitPrediction{r.Model, *r.UpperHalf}
}

func (fp FitPrediction) describe(maxN int) string {
	if fp.Range == FitUpperHalf {
		return fmt.Sprintf("upper half of N ≤ %d (%d points)", maxN, fp.Points)
	}
	return fmt.Sprintf("N ≤ %d (%d points)", maxN, fp.Points)
}

func (fp FitPrediction) nsPerRule() string {
	if fp.NsPerRule == nil {
		return "—"
	}
	return formatInterval(*fp.NsPerRule, 1)
}

func (fp FitPrediction) r2() string {
	if fp.R2 == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", fp.R2)
}

func (fp FitPrediction) verdict() string {
	v := "no"
	if fp.Within {
		v = "yes"
	}
	if !fp.Valid {
		v += fmt.Sprintf(" (not claimed: R² < %.2f or no interval)", DefaultMinR2)
	}
	return v
}

// formatInterval prints "v [lo, hi]" with the given decimals, or just v
// when there is no interval.
func formatInterval(e Estimate, decimals int) string {
	if e.NoInterval {
		return fmt.Sprintf("%.*f (no interval)", decimals, e.Value)
	}
	return fmt.Sprintf("%.*f [%.*f, %.*f]", decimals, e.Value, decimals, e.Lo, decimals, e.Hi)
}
