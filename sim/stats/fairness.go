package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// EndpointShare is one endpoint's part of a traffic split.
type EndpointShare struct {
	// Count is the number of connections (or packets) the endpoint got.
	Count uint64 `json:"count"`
	// Share is Count divided by the total.
	Share float64 `json:"share"`
	// ShareLo and ShareHi bound Share with a 95% Wilson score interval.
	ShareLo float64 `json:"share_lo"`
	ShareHi float64 `json:"share_hi"`
	// Expected is the probability the endpoint should get.
	Expected float64 `json:"expected"`
}

// FairnessResult describes how evenly a service spread traffic over its
// endpoints compared with the split it was configured for. Every field is a
// finite number, so the result encodes as JSON.
type FairnessResult struct {
	Endpoints []EndpointShare `json:"endpoints"`
	// Total is the sum of all counts.
	Total uint64 `json:"total"`
	// ChiSquare is Pearson's statistic Σ (observed-expected)²/expected over
	// endpoints whose expected probability is above zero.
	ChiSquare float64 `json:"chi_square"`
	// DegreesOfFreedom is the number of endpoints with a non-zero expected
	// probability, minus one.
	DegreesOfFreedom int `json:"degrees_of_freedom"`
	// P is the goodness-of-fit p-value: the chance of a ChiSquare at least
	// this large if traffic really followed the expected split. It is 1 when
	// DegreesOfFreedom is 0.
	P float64 `json:"p"`
	// Jain is Jain's fairness index (Σx)²/(n·Σx²) over the n endpoints
	// expected to get traffic, with x = Count/Expected, the load relative
	// to the endpoint's fair share (for a uniform split, simply the
	// counts). It is 1 when every endpoint got exactly its share and 1/n
	// when one endpoint got everything.
	Jain float64 `json:"jain"`
	// MaxMinRatio is the largest x divided by the smallest, with x as for
	// Jain; for a uniform split, the largest share over the smallest. It is
	// infinite when an endpoint got nothing: it is then reported as 0, and
	// ZeroEndpoints says how many endpoints got nothing.
	MaxMinRatio float64 `json:"max_min_ratio"`
	// ZeroEndpoints counts endpoints expected to get traffic that got none.
	ZeroEndpoints int `json:"zero_endpoints"`
	// Warnings explain where the chi-square approximation is weak.
	Warnings []string `json:"warnings,omitempty"`
}

// probabilityTolerance is how far expected probabilities may sum from 1.
const probabilityTolerance = 1e-6

// minExpectedCount is the usual rule of thumb below which Pearson's
// chi-square p-value is only approximate.
const minExpectedCount = 5

// Fairness tests per-endpoint counts against expected probabilities (nil
// means a uniform split). It returns an error for no endpoints, a zero
// total, expected probabilities that are negative, NaN, of the wrong length
// or do not sum to 1, and for a count on an endpoint expected to get nothing
// (the chi-square statistic would be infinite).
func Fairness(counts []uint64, expected []float64) (FairnessResult, error) {
	probs, err := expectedProbabilities(len(counts), expected)
	if err != nil {
		return FairnessResult{}, err
	}
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return FairnessResult{}, fmt.Errorf("fairness of %d endpoints: total count is zero", len(counts))
	}
	res := FairnessResult{Total: total, Endpoints: shares(counts, probs, total)}
	if err := res.goodnessOfFit(); err != nil {
		return FairnessResult{}, err
	}
	loads := normalizedLoads(res.Endpoints)
	res.Jain = jainIndex(loads)
	res.MaxMinRatio, res.ZeroEndpoints = maxMinRatio(loads)
	return res, nil
}

// expectedProbabilities validates expected, or builds a uniform split.
func expectedProbabilities(n int, expected []float64) ([]float64, error) {
	if n == 0 {
		return nil, errors.New("fairness: no endpoints")
	}
	if expected == nil {
		probs := make([]float64, n)
		for i := range probs {
			probs[i] = 1 / float64(n)
		}
		return probs, nil
	}
	if len(expected) != n {
		return nil, fmt.Errorf("fairness: %d counts but %d expected probabilities", n, len(expected))
	}
	sum := 0.0
	for i, p := range expected {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("fairness: expected probability %v of endpoint %d is not in [0, 1]", p, i)
		}
		sum += p
	}
	if math.Abs(sum-1) > probabilityTolerance {
		return nil, fmt.Errorf("fairness: expected probabilities sum to %v, not 1", sum)
	}
	return expected, nil
}

func shares(counts []uint64, probs []float64, total uint64) []EndpointShare {
	z := zScore(DefaultConfidence)
	out := make([]EndpointShare, len(counts))
	for i, c := range counts {
		lo, hi := wilson(float64(c), float64(total), z)
		out[i] = EndpointShare{
			Count:    c,
			Share:    float64(c) / float64(total),
			ShareLo:  lo,
			ShareHi:  hi,
			Expected: probs[i],
		}
	}
	return out
}

// goodnessOfFit fills ChiSquare, DegreesOfFreedom, P and Warnings.
// Endpoints expected to get nothing are left out of the test: a zero count
// there carries no information, a non-zero count is an error.
func (r *FairnessResult) goodnessOfFit() error {
	var obs, exp []float64
	for i, e := range r.Endpoints {
		if e.Expected == 0 {
			if e.Count > 0 {
				return fmt.Errorf("fairness: endpoint %d got %d but was expected to get nothing", i, e.Count)
			}
			continue
		}
		want := e.Expected * float64(r.Total)
		if want < minExpectedCount {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"endpoint %d expects %.2g counts (< %d): the chi-square p-value is approximate", i, want, minExpectedCount))
		}
		obs = append(obs, float64(e.Count))
		exp = append(exp, want)
	}
	r.DegreesOfFreedom = len(obs) - 1
	if r.DegreesOfFreedom == 0 {
		r.P = 1
		return nil
	}
	r.ChiSquare = stat.ChiSquare(obs, exp)
	r.P = distuv.ChiSquared{K: float64(r.DegreesOfFreedom)}.Survival(r.ChiSquare)
	return nil
}

// normalizedLoads returns count/expected for every endpoint expected to get
// traffic: its load relative to its fair share. For a uniform split these
// are the counts scaled by n, and Jain's index and the max/min ratio do not
// change under scaling.
func normalizedLoads(endpoints []EndpointShare) []float64 {
	loads := make([]float64, 0, len(endpoints))
	for _, e := range endpoints {
		if e.Expected > 0 {
			loads = append(loads, float64(e.Count)/e.Expected)
		}
	}
	return loads
}

// jainIndex is (Σx)²/(n·Σx²); the caller guarantees a non-zero sum.
func jainIndex(loads []float64) float64 {
	var sum, sumSquares float64
	for _, x := range loads {
		sum += x
		sumSquares += x * x
	}
	return sum * sum / (float64(len(loads)) * sumSquares)
}

// maxMinRatio returns max/min of the loads, or 0 and the number of zero
// loads when the ratio is infinite.
func maxMinRatio(loads []float64) (ratio float64, zeros int) {
	lo, hi := loads[0], loads[0]
	for _, x := range loads {
		lo, hi = min(lo, x), max(hi, x)
		if x == 0 {
			zeros++
		}
	}
	if zeros > 0 {
		return 0, zeros
	}
	return hi / lo, 0
}
