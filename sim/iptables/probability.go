package iptables

import "math"

// probabilityScale is 2^31: xt_statistic compares a 31-bit random number
// with the stored threshold.
const probabilityScale = 1 << 31

// KernelProbability returns the threshold the kernel stores for a
// statistic --probability p: libxt_statistic.c sets
// info->u.random.probability = lround(0x80000000 * p), and xt_statistic
// matches when (get_random_u32() & 0x7FFFFFFF) < probability.
func KernelProbability(p float64) uint32 {
	switch {
	case p <= 0 || math.IsNaN(p):
		return 0
	case p >= 1:
		return probabilityScale
	}
	return uint32(math.Round(p * probabilityScale))
}

// EffectiveProbability returns the probability with which the kernel takes
// a statistic --probability p rule: KernelProbability(p) / 2^31.
func EffectiveProbability(p float64) float64 {
	return float64(KernelProbability(p)) / probabilityScale
}

// Effective returns the match probability the kernel applies to s (random
// mode), taking negation into account.
func (s *StatisticMatch) Effective() float64 {
	e := EffectiveProbability(s.ProbabilityValue)
	if s.Negated {
		return 1 - e
	}
	return e
}

// Nominal returns the probability as written, taking negation into
// account.
func (s *StatisticMatch) Nominal() float64 {
	if s.Negated {
		return 1 - s.ProbabilityValue
	}
	return s.ProbabilityValue
}
