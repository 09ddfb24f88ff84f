package cost

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// QuadFit is a least-squares quadratic y = A + B·x + C·x² with what a 95%
// interval for the mean response needs. x is scaled by Scale (the largest
// calibration x) internally to keep the normal equations well conditioned.
type QuadFit struct {
	// Coef are the coefficients of the scaled fit: y = Coef[0] +
	// Coef[1]·(x/Scale) + Coef[2]·(x/Scale)².
	Coef  [3]float64 `json:"coef"`
	Scale float64    `json:"scale"`
	// Cov is (XᵀX)⁻¹ of the scaled design, row-major.
	Cov            [9]float64 `json:"cov"`
	ResidualStdErr float64    `json:"residual_std_err"`
	N              int        `json:"n"`
}

// quadraticFit fits a quadratic by least squares. It needs at least 3
// points at 3 distinct x; an interval needs 4.
func quadraticFit(x, y []float64) (QuadFit, error) {
	if distinctCount(x) < 3 {
		return QuadFit{}, fmt.Errorf("quadratic fit: %d distinct sizes, need 3", distinctCount(x))
	}
	q := QuadFit{N: len(x)}
	for _, v := range x {
		q.Scale = math.Max(q.Scale, math.Abs(v))
	}
	design := mat.NewDense(len(x), 3, nil)
	for i, v := range x {
		s := v / q.Scale
		design.SetRow(i, []float64{1, s, s * s})
	}
	var xtx, inv mat.Dense
	xtx.Mul(design.T(), design)
	if err := inv.Inverse(&xtx); err != nil {
		return QuadFit{}, fmt.Errorf("quadratic fit: %w", err)
	}
	var xty, coef mat.VecDense
	xty.MulVec(design.T(), mat.NewVecDense(len(y), append([]float64(nil), y...)))
	coef.MulVec(&inv, &xty)
	for i := range 3 {
		q.Coef[i] = coef.AtVec(i)
		for j := range 3 {
			q.Cov[3*i+j] = inv.At(i, j)
		}
	}
	if q.N > 3 {
		sse := 0.0
		for i, v := range x {
			r := y[i] - q.mean(v)
			sse += r * r
		}
		q.ResidualStdErr = math.Sqrt(sse / float64(q.N-3))
	}
	return q, nil
}

// mean is the fitted y at x.
func (q QuadFit) mean(x float64) float64 {
	s := x / q.Scale
	return q.Coef[0] + q.Coef[1]*s + q.Coef[2]*s*s
}

// predict returns the fitted y at x with a 95% interval for the mean
// response (t with N−3 degrees of freedom); with 3 points, no interval.
func (q QuadFit) predict(x float64) Estimate {
	y := q.mean(x)
	if q.N <= 3 {
		e := exact(y)
		e.NoInterval = true
		return e
	}
	s := x / q.Scale
	v := [3]float64{1, s, s * s}
	quad := 0.0
	for i := range 3 {
		for j := range 3 {
			quad += v[i] * q.Cov[3*i+j] * v[j]
		}
	}
	half := tQuantile(q.N-3) * q.ResidualStdErr * math.Sqrt(math.Max(quad, 0))
	return Estimate{Value: y, Lo: y - half, Hi: y + half}
}

// curvesUp says whether the quadratic term is positive beyond its 95%
// interval: the points themselves show a sync growing faster than a line.
func (q QuadFit) curvesUp() bool {
	if q.N <= 3 {
		return false
	}
	return q.Coef[2]-tQuantile(q.N-3)*q.ResidualStdErr*math.Sqrt(math.Max(q.Cov[8], 0)) > 0
}
