package results

import "github.com/svclab/svclab/sim/stats"

// ObserveCascade fills, for each of r.Rules (an iptables statistic
// cascade, in chain order), what reached the rule and the share of it the
// rule took, with its interval and a binomial test against the rule's
// nominal probability (stats.Cascade). It leaves the rules alone when their
// counts cannot be a cascade.
func (r *FairnessRun) ObserveCascade() {
	packets := make([]uint64, len(r.Rules))
	probs := make([]float64, len(r.Rules))
	for i, rule := range r.Rules {
		packets[i], probs[i] = rule.Packets, rule.Probability
	}
	steps, err := stats.Cascade(packets, probs)
	if err != nil {
		return
	}
	for i, s := range steps {
		rule := &r.Rules[i]
		rule.Reached, rule.Observed, rule.ObservedLo, rule.ObservedHi, rule.P = s.Reached, s.Observed, s.ObservedLo, s.ObservedHi, s.P
	}
}
