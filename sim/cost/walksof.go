package cost

// WithWalksOf is a copy of r (a calibration) whose machine walks, the steps
// the planner prices long walks with (ChainListWalk: iptables-nft-restore's
// chain list; ChainDumpWalk: nft's chain dump; AnonymousSetWalk: the
// kernel's anonymous sets), are run's wherever run timed them, and the
// names of the walks it took (none: r itself). A check priced so takes out
// of its error the machine's move between the calibration and the
// measurement, which a step of these walks shows up to 2-6× here
// (docs/planning.md), as far as the run's own walks show it (not all of
// it: results/plan-walks-from-run). A plan cannot do this (it has no
// measurement yet); it is a diagnostic for plan check. r is left as it is.
func (r *Run) WithWalksOf(run *Run) (*Run, []string) {
	out := *r
	var taken []string
	if len(run.ChainListWalk) > 0 {
		out.ChainListWalk, out.ChainListSwing, taken = run.ChainListWalk, run.ChainListSwing, append(taken, "chain-list walk")
	}
	if len(run.ChainDumpWalk) > 0 {
		out.ChainDumpWalk, taken = run.ChainDumpWalk, append(taken, "chain dump walk")
	}
	if len(run.AnonymousSetWalk) > 0 {
		out.AnonymousSetWalk, taken = run.AnonymousSetWalk, append(taken, "anonymous-set walks")
	}
	if len(taken) == 0 {
		return r, nil
	}
	return &out, taken
}
