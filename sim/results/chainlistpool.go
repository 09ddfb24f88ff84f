package results

import "math"

// PoolChainListWalks joins chain-list walks timed at different moments of
// one run: meta.json's, at its start, and the TypeChainListWalk records
// after it. A restore of a large payload runs for minutes to tens of
// minutes through the machine's swings (one payload's restore moved 2-3×
// between restores minutes apart on the reference VM), so a step is priced
// at the walks' mean, and its range takes in the fastest and the slowest
// round of every walk. Steps are matched by layout and length, in the
// first walk's order; a step only some walks timed is pooled over those.
// One walk (or none) is returned as it is.
func PoolChainListWalks(walks ...[]ChainListStep) []ChainListStep {
	var timed [][]ChainListStep
	for _, w := range walks {
		if len(w) > 0 {
			timed = append(timed, w)
		}
	}
	if len(timed) < 2 {
		if len(timed) == 1 {
			return timed[0]
		}
		return nil
	}
	var order []stepKey
	byKey := map[stepKey][]ChainListStep{}
	for _, w := range timed {
		for _, s := range w {
			k := keyOfStep(s)
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], s)
		}
	}
	out := make([]ChainListStep, 0, len(order))
	for _, k := range order {
		out = append(out, poolSteps(byKey[k]))
	}
	return out
}

// poolSteps is one length's pooled step: the means of the steps (cold and
// warm over the walks that split them), the range over every walk's
// rounds (a walk without a range counts its mean as both ends).
func poolSteps(steps []ChainListStep) ChainListStep {
	p := steps[0]
	p.NsPerStep, p.ColdNsPerStep, p.WarmNsPerStep = 0, 0, 0
	p.MinNsPerStep, p.MaxNsPerStep = math.Inf(1), 0
	split := 0
	for _, s := range steps {
		p.NsPerStep += s.NsPerStep / float64(len(steps))
		if s.ColdNsPerStep > 0 && s.WarmNsPerStep > 0 {
			p.ColdNsPerStep += s.ColdNsPerStep
			p.WarmNsPerStep += s.WarmNsPerStep
			split++
		}
		lo, hi := s.MinNsPerStep, s.MaxNsPerStep
		if lo <= 0 || hi <= 0 {
			lo, hi = s.NsPerStep, s.NsPerStep
		}
		p.MinNsPerStep = min(p.MinNsPerStep, lo)
		p.MaxNsPerStep = max(p.MaxNsPerStep, hi)
	}
	if split > 0 {
		p.ColdNsPerStep /= float64(split)
		p.WarmNsPerStep /= float64(split)
	}
	return p
}

// ChainListWalksOf are the TypeChainListWalk records' walks, in order.
func ChainListWalksOf(records []Record) [][]ChainListStep {
	var out [][]ChainListStep
	for _, r := range records {
		if r.Type == TypeChainListWalk && len(r.ChainListWalk) > 0 {
			out = append(out, r.ChainListWalk)
		}
	}
	return out
}

// ChainListSwing is how far apart walks timed at different moments lay:
// the largest ratio of one walk's step to another's at the same layout and
// length, and that length. Fewer than two walks give 1 and 0.
func ChainListSwing(walks ...[]ChainListStep) (ratio float64, chains int) {
	ratio = 1
	steps := map[stepKey][]float64{}
	for _, w := range walks {
		for _, s := range w {
			k := keyOfStep(s)
			steps[k] = append(steps[k], s.NsPerStep)
		}
	}
	for k, ns := range steps {
		lo, hi := math.Inf(1), 0.0
		for _, v := range ns {
			lo, hi = min(lo, v), max(hi, v)
		}
		if len(ns) > 1 && lo > 0 && (hi/lo > ratio || hi/lo == ratio && k.chains > chains) {
			ratio, chains = hi/lo, k.chains
		}
	}
	return ratio, chains
}

// stepKey names a step's list: its layout (ChainListFull for a step
// recorded before layouts were) and length.
type stepKey struct {
	layout string
	chains int
}

func keyOfStep(s ChainListStep) stepKey {
	if s.OfLayout(ChainListFull) {
		return stepKey{ChainListFull, s.Chains}
	}
	return stepKey{s.Layout, s.Chains}
}
