package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/metric"

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
	fmt.Fprintf(w, "\n%s  %s (%s)  %s, %d errors, %s mode, %s\n",
		r.Dataplane, r.Service, r.ClusterIP, loadLine(r), r.Errors, r.Mode, connectLatency(r))
	if path := trafficPath(r); path != "" {
		fmt.Fprintln(w, path)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "endpoint\tpod\t%s\tshare\t95%% interval\texpected\tkernel (connections)\tsources seen\t\n", servedUnit(r))
	for _, e := range r.Endpoints {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t[%.4f, %.4f]\t%.4f\t%s\t%s\t\n", e.Endpoint, e.Pod, e.Count, e.Share, e.ShareLo, e.ShareHi, e.Expected, dnat(r, e), sources(e))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if lo := leftOutLine(r); lo != "" {
		fmt.Fprintln(w, lo)
	}
	if r.ExpectDropped {
		fmt.Fprintln(w, droppedVerdict(r))
		return rulesTable(w, r)
	}
	if r.Mode == "keepalive" {
		fmt.Fprintf(w, "%s%s\n", KeepaliveVerdict(r), witness(r))
		return rulesTable(w, r)
	}
	fmt.Fprintf(w, "chi-square p %s (%s), Jain index = %.5f, max/min = %.4f%s\n",
		formatP(r.ChiSquareP), verdict(r.ChiSquareP), r.Jain, r.MaxMinRatio, agreement(r))
	return rulesTable(w, r)
}

// leftOutLine lists the endpoints the rules leave out of this traffic and
// what their pods served ("" when there are none).
func leftOutLine(r results.FairnessRun) string {
	if len(r.LeftOut) == 0 {
		return ""
	}
	parts := make([]string, len(r.LeftOut))
	for i, e := range r.LeftOut {
		parts[i] = fmt.Sprintf("%s served %d", e.Endpoint, e.Count)
	}
	return "left out by the rules: " + strings.Join(parts, ", ")
}

// droppedVerdict says whether traffic the rules promise to drop was
// dropped: no endpoint may have served a connection.
func droppedVerdict(r results.FairnessRun) string {
	var served uint64
	for _, e := range r.Endpoints {
		served += uint64(e.Count)
	}
	if served == 0 {
		return fmt.Sprintf("dropped, as the rules promise: no endpoint served any of the %d connections (%d failed)", r.Connections, r.Errors)
	}
	return fmt.Sprintf("NOT dropped, though the rules promise it: endpoints served %d of %d connections", served, r.Connections)
}

// trafficPath says where the connections came from and went to, for runs
// that record it: "from external 203.0.113.1 to loadBalancer 192.0.2.90:80 (IPv4)".
func trafficPath(r results.FairnessRun) string {
	if r.From == "" && r.Target == "" {
		return ""
	}
	out := "from " + r.From
	if r.Source != "" {
		out += " " + r.Source
	}
	out += " to " + r.Target
	if r.Address != "" {
		out += " " + r.Address
	}
	if r.Family != "" {
		out += " (" + r.Family + ")"
	}
	return out
}

// sources lists the client addresses an endpoint saw, most first
// ("192.168.99.1×1498"), or "-" when none were recorded.
func sources(e results.Endpoint) string {
	if len(e.Sources) == 0 {
		return "-"
	}
	addrs := make([]string, 0, len(e.Sources))
	for a := range e.Sources {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool {
		return e.Sources[addrs[i]] > e.Sources[addrs[j]] || e.Sources[addrs[i]] == e.Sources[addrs[j]] && addrs[i] < addrs[j]
	})
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = fmt.Sprintf("%s×%d", a, e.Sources[a])
	}
	return strings.Join(parts, " ")
}

// loadLine is what was sent: "20,000 connections", or in keep-alive mode
// "6,000 requests over 24 connections".
func loadLine(r results.FairnessRun) string {
	if r.Mode == "keepalive" && r.Requests > 0 {
		return fmt.Sprintf("%s requests over %s connections", thousands(int64(r.Requests)), thousands(int64(r.Connections)))
	}
	return thousands(int64(r.Connections)) + " connections"
}

// connectLatency is "1,234 conn/s, connect p50 85 µs, p99 310 µs", or says
// no connection completed (dropped traffic has no connect time).
func connectLatency(r results.FairnessRun) string {
	if r.P50us == 0 && r.P99us == 0 {
		return "no connection completed, so no connect time"
	}
	return fmt.Sprintf("%s conn/s, connect p50 %s, p99 %s", thousands(int64(math.Round(r.ConnPerSec))), metric.FormatMicros(r.P50us), metric.FormatMicros(r.P99us))
}

func dnat(r results.FairnessRun, e results.Endpoint) string {
	if r.KernelCounter == "" {
		return "-"
	}
	return fmt.Sprint(e.DNAT)
}

func verdict(p float64) string {
	if p < SkewP {
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
