package stats

import (
	"errors"
	"fmt"
)

// CascadeStep is one rule of a kube-proxy probability cascade, for example
// one `-m statistic --mode random --probability 0.33333` rule of a KUBE-SVC
// chain. A rule only sees the packets that earlier rules did not take.
type CascadeStep struct {
	// Rule is the rule's index in the chain, from 0.
	Rule int `json:"rule"`
	// Reached is the number of packets that got to this rule: the total
	// minus what earlier rules took.
	Reached uint64 `json:"reached"`
	// Packets is the number of packets the rule took.
	Packets uint64 `json:"packets"`
	// Probability is the rule's configured probability.
	Probability float64 `json:"probability"`
	// Observed is Packets/Reached, the conditional probability measured;
	// 0 when Reached is 0.
	Observed float64 `json:"observed"`
	// ObservedLo and ObservedHi bound Observed with a 95% Wilson score
	// interval; [0, 1] when Reached is 0.
	ObservedLo float64 `json:"observed_lo"`
	ObservedHi float64 `json:"observed_hi"`
	// P is the exact two-sided binomial p-value of Packets out of Reached
	// under Probability; 1 when Reached is 0.
	P float64 `json:"p"`
}

// Cascade checks the conditional probabilities of a chain of statistic rules
// from their packet counters. packets[i] is the counter of rule i and
// probabilities[i] its configured probability. The last rule is the one
// without a statistic match that takes everything left, so its probability
// must be 1; then the sum of the counters is the number of packets that
// entered the chain.
func Cascade(packets []uint64, probabilities []float64) ([]CascadeStep, error) {
	if err := validateCascade(packets, probabilities); err != nil {
		return nil, err
	}
	var total uint64
	for _, p := range packets {
		total += p
	}
	z := zScore(DefaultConfidence)
	steps := make([]CascadeStep, len(packets))
	reached := total
	for i, took := range packets {
		steps[i] = cascadeStep(i, took, reached, probabilities[i], z)
		reached -= took
	}
	return steps, nil
}

func validateCascade(packets []uint64, probabilities []float64) error {
	if len(packets) == 0 {
		return errors.New("cascade: no rules")
	}
	if len(packets) != len(probabilities) {
		return fmt.Errorf("cascade: %d packet counters but %d probabilities", len(packets), len(probabilities))
	}
	for i, p := range probabilities {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("cascade: probability %v of rule %d is not in [0, 1]", p, i)
		}
	}
	if last := probabilities[len(probabilities)-1]; last != 1 {
		return fmt.Errorf("cascade: last rule has probability %v, want 1 (the rule that takes what is left)", last)
	}
	return nil
}

func cascadeStep(rule int, took, reached uint64, probability, z float64) CascadeStep {
	step := CascadeStep{
		Rule:        rule,
		Reached:     reached,
		Packets:     took,
		Probability: probability,
		ObservedHi:  1,
		P:           1,
	}
	if reached == 0 {
		return step
	}
	k, n := float64(took), float64(reached)
	step.Observed = k / n
	step.ObservedLo, step.ObservedHi = wilson(k, n, z)
	step.P = binomialTwoSided(k, n, probability)
	return step
}
