package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/results"
)

// FairnessTable writes one block per fairness run: the endpoints with their
// shares and kernel counters, the split statistics, and the statistic rules.
func FairnessTable(w io.Writer, s *results.Summary) error {
	for _, r := range s.Runs {
		if err := fairnessRun(w, r); err != nil {
			return err
		}
	}
	return nil
}

func fairnessRun(w io.Writer, r results.FairnessRun) error {
	fmt.Fprintf(w, "\n%s  %s (%s)  %d connections, %d errors, %s mode, %.0f conn/s, connect p50 %.0fµs p99 %.0fµs\n",
		r.Dataplane, r.Service, r.ClusterIP, r.Connections, r.Errors, r.Mode, r.ConnPerSec, r.P50us, r.P99us)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tpod\tserved\tshare\t95% interval\texpected\tkernel\t")
	for _, e := range r.Endpoints {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t[%.4f, %.4f]\t%.4f\t%s\t\n", e.Endpoint, e.Pod, e.Count, e.Share, e.ShareLo, e.ShareHi, e.Expected, dnat(r, e))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "chi-square p = %.4g (%s), Jain index = %.5f, max/min = %.4f%s\n",
		r.ChiSquareP, verdict(r.ChiSquareP), r.Jain, r.MaxMinRatio, agreement(r))
	return rulesTable(w, r)
}

func dnat(r results.FairnessRun, e results.Endpoint) string {
	if r.KernelCounter == "" {
		return "-"
	}
	return fmt.Sprint(e.DNAT)
}

func verdict(p float64) string {
	if p < 0.01 {
		return "the split is NOT the expected one"
	}
	return "consistent with the expected split"
}

func agreement(r results.FairnessRun) string {
	switch {
	case r.KernelCounter == "":
		return ""
	case r.CountsAgree:
		return "; server counts equal the kernel's counters (" + r.KernelCounter + ")"
	}
	return "; server counts DIFFER from the kernel's counters (" + r.KernelCounter + ")"
}

func rulesTable(w io.Writer, r results.FairnessRun) error {
	if len(r.Rules) == 0 {
		return nil
	}
	fmt.Fprintf(w, "kernel counters of %s (%d new connections entered it):\n", r.Rules[0].Chain, r.ChainEntered)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rule\ttarget\tprobability\treached\ttook\tobserved\t95% interval\tp\t")
	for _, rule := range r.Rules {
		fmt.Fprintf(tw, "%d\t%s\t%.10f\t%d\t%d\t%.4f\t[%.4f, %.4f]\t%.3g\t\n",
			rule.Index, rule.Target, rule.Probability, rule.Reached, rule.Packets, rule.Observed, rule.ObservedLo, rule.ObservedHi, rule.P)
	}
	return tw.Flush()
}
