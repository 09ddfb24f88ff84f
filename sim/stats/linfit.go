package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Fit is an ordinary least-squares line y = Intercept + Slope·x with 95%
// confidence intervals, e.g. first-packet latency (ns) against the number of
// services (slope in ns per service).
type Fit struct {
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	// SlopeLo and SlopeHi bound Slope with a 95% confidence interval from
	// Student's t distribution with N-2 degrees of freedom.
	SlopeLo float64 `json:"slope_lo"`
	SlopeHi float64 `json:"slope_hi"`
	// InterceptLo and InterceptHi bound Intercept likewise.
	InterceptLo float64 `json:"intercept_lo"`
	InterceptHi float64 `json:"intercept_hi"`
	// R2 is the coefficient of determination: the fraction of the variance
	// of y that the line explains. It is 1 when y is constant.
	R2 float64 `json:"r2"`
	// N is the number of points.
	N int `json:"n"`
	// ResidualStdErr is sqrt(Σ residual² / (N-2)), the typical distance of a
	// point from the line.
	ResidualStdErr float64 `json:"residual_std_err"`
	// XMean and XSumSquares (Σ(x - XMean)²) are kept so that Predict works
	// on a Fit read back from JSON.
	XMean       float64 `json:"x_mean"`
	XSumSquares float64 `json:"x_sum_squares"`
}

// LinearFit fits y against x by least squares. It needs at least 3 points
// (a confidence interval needs N-2 >= 1 degrees of freedom), finite values
// and at least two distinct x.
func LinearFit(x, y []float64) (Fit, error) {
	if err := validateFitInput(x, y); err != nil {
		return Fit{}, err
	}
	n := float64(len(x))
	xMean := stat.Mean(x, nil)
	sxx := sumSquaredDeviations(x, xMean)
	if sxx == 0 {
		return Fit{}, fmt.Errorf("linear fit of %d points: all x are equal to %v", len(x), xMean)
	}
	intercept, slope := stat.LinearRegression(x, y, nil, false)
	s := math.Sqrt(residualSumSquares(x, y, intercept, slope) / (n - 2))
	t := tCritical(len(x))
	slopeErr := s / math.Sqrt(sxx)
	interceptErr := s * math.Sqrt(1/n+xMean*xMean/sxx)
	return Fit{
		Slope:          slope,
		Intercept:      intercept,
		SlopeLo:        slope - t*slopeErr,
		SlopeHi:        slope + t*slopeErr,
		InterceptLo:    intercept - t*interceptErr,
		InterceptHi:    intercept + t*interceptErr,
		R2:             rSquared(x, y, intercept, slope),
		N:              len(x),
		ResidualStdErr: s,
		XMean:          xMean,
		XSumSquares:    sxx,
	}, nil
}

// Predict returns the fitted y at x and a 95% confidence interval for the
// MEAN response at x: ŷ ± t·s·sqrt(1/N + (x-x̄)²/Sxx). It says where the line
// lies, not where a single new measurement will fall (PredictObservation,
// PredictMedian). A Fit with fewer than 3 points (the zero Fit) gives
// y = Intercept + Slope·x with lo = hi = y.
func Predict(fit Fit, x float64) (y, lo, hi float64) {
	return predictWithSpread(fit, x, 0)
}

// PredictMedian returns the fitted y at x with a 95% interval for the
// median of m new observations there: the mean's uncertainty plus the
// spread of such a median (π/2·σ²/m for normal scatter, σ the residual
// standard error). With fewer than 3 points or m < 1 it is Predict.
func PredictMedian(fit Fit, x float64, m int) (y, lo, hi float64) {
	if m < 1 {
		return Predict(fit, x)
	}
	return predictWithSpread(fit, x, math.Pi/2/float64(m))
}

// PredictObservation returns the fitted y at x with the 95% prediction
// interval for one new observation like the fitted ones (each a median of
// repetitions, say, when the fit was on medians): ŷ ± t·s·sqrt(1 + 1/N +
// (x-x̄)²/Sxx). With fewer than 3 points it is Predict.
func PredictObservation(fit Fit, x float64) (y, lo, hi float64) {
	return predictWithSpread(fit, x, 1)
}

// predictWithSpread is the fitted y at x with the mean's 95% interval
// widened by spread·σ² inside the square root: the scatter of what will be
// measured, beyond the line's (0: the mean's own).
func predictWithSpread(fit Fit, x, spread float64) (y, lo, hi float64) {
	y = fit.Intercept + fit.Slope*x
	if fit.N < 3 || fit.XSumSquares == 0 {
		return y, y, y
	}
	dx := x - fit.XMean
	half := tCritical(fit.N) * fit.ResidualStdErr * math.Sqrt(1/float64(fit.N)+dx*dx/fit.XSumSquares+spread)
	return y, y - half, y + half
}

func validateFitInput(x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("linear fit: %d x values but %d y values", len(x), len(y))
	}
	if len(x) < 3 {
		return fmt.Errorf("linear fit: %d points, need at least 3", len(x))
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("linear fit: point %d (%v, %v) is not finite", i, x[i], y[i])
		}
	}
	return nil
}

// tCritical is the two-sided 95% critical value of Student's t with n-2
// degrees of freedom.
func tCritical(n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}
	return t.Quantile(1 - (1-DefaultConfidence)/2)
}

func sumSquaredDeviations(v []float64, mean float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += (x - mean) * (x - mean)
	}
	return sum
}

func residualSumSquares(x, y []float64, intercept, slope float64) float64 {
	sum := 0.0
	for i := range x {
		r := y[i] - intercept - slope*x[i]
		sum += r * r
	}
	return sum
}

// rSquared is stat.RSquared, defined as 1 when y is constant (the line then
// fits exactly) instead of NaN, so that a Fit always encodes as JSON.
func rSquared(x, y []float64, intercept, slope float64) float64 {
	if sumSquaredDeviations(y, stat.Mean(y, nil)) == 0 {
		return 1
	}
	return stat.RSquared(x, y, nil, intercept, slope)
}
