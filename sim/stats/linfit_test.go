package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLinearFitExactLine(t *testing.T) {
	// y = 3 + 2x exactly: slope 2, intercept 3, R² 1, zero-width intervals.
	x := []float64{0, 1, 2, 3, 4, 5}
	y := []float64{3, 5, 7, 9, 11, 13}
	f, err := LinearFit(x, y)
	checkErrorContains(t, err, "")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Slope", f.Slope, 2}, {"Intercept", f.Intercept, 3}, {"R2", f.R2, 1},
		{"SlopeLo", f.SlopeLo, 2}, {"SlopeHi", f.SlopeHi, 2},
		{"InterceptLo", f.InterceptLo, 3}, {"InterceptHi", f.InterceptHi, 3},
		{"ResidualStdErr", f.ResidualStdErr, 0},
	} {
		checkApprox(t, c.name, c.got, c.want, 1e-12)
	}
	y0, lo, hi := Predict(f, 10)
	checkApprox(t, "Predict", y0, 23, 1e-12)
	checkApprox(t, "Predict lo", lo, 23, 1e-12)
	checkApprox(t, "Predict hi", hi, 23, 1e-12)
}

func TestLinearFitAgainstScipy(t *testing.T) {
	// Latency (µs) against services. Reference: r = scipy.stats.linregress(x, y),
	// t = scipy.stats.t.ppf(0.975, 5) = 2.5705818366147395,
	// CI = value ± t·stderr (r.stderr, r.intercept_stderr).
	x := []float64{100, 200, 500, 1000, 2000, 5000, 10000}
	y := []float64{52.1, 53.9, 61.2, 71.8, 93.0, 153.7, 255.2}
	f, err := LinearFit(x, y)
	checkErrorContains(t, err, "")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Slope", f.Slope, 0.020487076218093293},
		{"Intercept", f.Intercept, 50.82042387140658},
		{"R2", f.R2, 0.999887160531844},
		{"SlopeLo", f.SlopeLo, 0.020236879600046685},
		{"SlopeHi", f.SlopeHi, 0.0207372728361399},
		{"InterceptLo", f.InterceptLo, 49.740968671319884},
		{"InterceptHi", f.InterceptHi, 51.89987907149328},
		{"ResidualStdErr", f.ResidualStdErr, 0.8695103760924224},
	} {
		checkApprox(t, c.name, c.got, c.want, 1e-9)
	}
	if f.N != 7 {
		t.Errorf("N = %d, want 7", f.N)
	}
	// Mean-response interval ŷ ± t·s·sqrt(1/n + (x0-x̄)²/Sxx), numpy.
	for _, p := range []struct{ x, y, lo, hi float64 }{
		{0, 50.82042387140658, 49.7409686713201, 51.89987907149307},
		{3000, 112.28165252568647, 111.43319451355961, 113.13011053781332},
		{20000, 460.56194823327246, 456.14836561407196, 464.97553085247296},
	} {
		y0, lo, hi := Predict(f, p.x)
		checkApprox(t, "Predict y", y0, p.y, 1e-9)
		checkApprox(t, "Predict lo", lo, p.lo, 1e-9)
		checkApprox(t, "Predict hi", hi, p.hi, 1e-9)
	}
}

func TestLinearFitNoisyContainsTrueSlope(t *testing.T) {
	// y = 40 + 0.5x + uniform noise in [-5, 5): the 95% interval should
	// hold the true slope and intercept (fixed seed, so not flaky).
	rng := rand.New(rand.NewPCG(1, 2))
	var x, y []float64
	for i := 0; i < 50; i++ {
		xi := float64(i * 20)
		x = append(x, xi)
		y = append(y, 40+0.5*xi+10*(rng.Float64()-0.5))
	}
	f, err := LinearFit(x, y)
	checkErrorContains(t, err, "")
	if !(f.R2 < 1 && f.R2 > 0.99) {
		t.Errorf("R2 = %v, want just below 1", f.R2)
	}
	if !(f.SlopeLo < 0.5 && 0.5 < f.SlopeHi) {
		t.Errorf("slope interval [%v, %v] misses 0.5", f.SlopeLo, f.SlopeHi)
	}
	if !(f.InterceptLo < 40 && 40 < f.InterceptHi) {
		t.Errorf("intercept interval [%v, %v] misses 40", f.InterceptLo, f.InterceptHi)
	}
	if _, lo, hi := Predict(f, 500); !(lo < 290 && 290 < hi) {
		t.Errorf("mean at 500: [%v, %v] misses 290", lo, hi)
	}
}

func TestLinearFitConstantY(t *testing.T) {
	f, err := LinearFit([]float64{1, 2, 3}, []float64{7, 7, 7})
	checkErrorContains(t, err, "")
	if f.Slope != 0 || f.Intercept != 7 || f.R2 != 1 {
		t.Errorf("fit of constant y = %+v", f)
	}
}

func TestLinearFitErrors(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		err  string
	}{
		{"length", []float64{1, 2, 3}, []float64{1, 2}, "3 x values but 2 y values"},
		{"too few", []float64{1, 2}, []float64{1, 2}, "need at least 3"},
		{"same x", []float64{4, 4, 4}, []float64{1, 2, 3}, "all x are equal"},
		{"NaN", []float64{1, 2, 3}, []float64{1, nan(), 3}, "not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LinearFit(tc.x, tc.y)
			checkErrorContains(t, err, tc.err)
		})
	}
}

func TestPredictZeroFit(t *testing.T) {
	y, lo, hi := Predict(Fit{Slope: 2, Intercept: 1}, 3)
	if y != 7 || lo != 7 || hi != 7 {
		t.Errorf("Predict on a bare Fit = %v, %v, %v; want 7, 7, 7", y, lo, hi)
	}
}

// TestPredictMedian: the interval for a median of m new observations adds
// π/2·σ²/m to the mean's variance, for one observation like the fitted ones
// σ²; without m (or points) it is Predict's.
func TestPredictMedian(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	y := []float64{1.1, 2.9, 5.2, 6.8, 9.1, 11.0}
	f, err := LinearFit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	_, mlo, mhi := Predict(f, 8)
	median := func(m int) func(Fit, float64) (float64, float64, float64) {
		return func(f Fit, x float64) (float64, float64, float64) { return PredictMedian(f, x, m) }
	}
	half := func(spread float64) float64 {
		return tCritical(f.N) * f.ResidualStdErr * math.Sqrt(1.0/6+(8-f.XMean)*(8-f.XMean)/f.XSumSquares+spread)
	}
	tests := []struct {
		name    string
		predict func(Fit, float64) (float64, float64, float64)
		want    float64 // half width
		wider   bool    // than the mean's
	}{
		{"median of one", median(1), half(math.Pi / 2), true},
		{"median of three", median(3), half(math.Pi / 6), true},
		{"median of none", median(0), (mhi - mlo) / 2, false},
		{"one observation", PredictObservation, half(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y, lo, hi := tt.predict(f, 8)
			if math.Abs((hi-lo)/2-tt.want) > 1e-12 || math.Abs(y-(hi+lo)/2) > 1e-12 {
				t.Errorf("%s = %v [%v, %v], want half width %v", tt.name, y, lo, hi, tt.want)
			}
			if tt.wider && !(hi-lo > mhi-mlo) {
				t.Errorf("the interval [%v, %v] is not wider than the mean's [%v, %v]", lo, hi, mlo, mhi)
			}
		})
	}
	if y, lo, hi := PredictMedian(Fit{Slope: 2, Intercept: 1}, 3, 3); y != 7 || lo != 7 || hi != 7 {
		t.Errorf("PredictMedian on a bare Fit = %v, %v, %v; want 7, 7, 7", y, lo, hi)
	}
	if y, lo, hi := PredictObservation(Fit{Slope: 2, Intercept: 1}, 3); y != 7 || lo != 7 || hi != 7 {
		t.Errorf("PredictObservation on a bare Fit = %v, %v, %v; want 7, 7, 7", y, lo, hi)
	}
}
