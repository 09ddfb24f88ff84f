package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// FlatNsPerService is the slope below which a dataplane's line counts as
// flat in the headline (when its 95% interval does not already include
// zero): under 1 ns per service is under 1 µs per 1,000 services.
const FlatNsPerService = 1.0

// Headline is what a run found, in a few lines for the first screen: who
// wrote the rules (engine and kube-proxy release), per dataplane the split
// verdict with the kernel's witness, and for a sweep the slope of
// first-packet latency per dataplane with its interval, the full sync
// time at the largest count, and for a timeline with kube-proxy restarts
// the time to serve after each. meta may be nil.
func Headline(s *results.Summary, meta *results.Meta) []string {
	var lines []string
	if meta != nil {
		lines = append(lines, engineLine(meta))
	}
	for _, r := range s.Runs {
		lines = append(lines, splitLine(r, len(s.Runs) > len(dataplanesOf(s.Runs))))
	}
	if line := slopeLine(s.Fits); line != "" {
		if meta != nil && meta.Engine == scenario.EngineKubeProxy {
			line += KubeProxyOrderNote
		}
		lines = append(lines, line)
	}
	if line := syncLine(s.Points); line != "" {
		lines = append(lines, line)
	}
	for _, t := range s.Timelines {
		if line := coldStartLine(t); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// KubeProxyOrderNote qualifies a rule walk's slope when kube-proxy wrote
// the rules: it orders KUBE-SERVICES itself (Go map order, new at every
// full sync), so a sweep's position is not the target rule's place and an
// iptables slope mixes positions.
const KubeProxyOrderNote = " (rules by kube-proxy, which orders KUBE-SERVICES itself at every sync: the position asked is not the rule's, so an iptables slope mixes positions; use --engine native for the rule walk)"

// engineLine: "rules: kube-proxy v1.37.2's, written by kube-proxy itself".
func engineLine(m *results.Meta) string {
	patch := render.KubeProxyVersion(m.KubeProxyVersion).Release().Patch
	if patch == "" {
		patch = "v" + m.KubeProxyVersion
	}
	if m.Engine == scenario.EngineKubeProxy {
		return fmt.Sprintf("rules: written by kube-proxy %s itself (its own proxier, --engine kube-proxy)", patch)
	}
	return fmt.Sprintf("rules: kube-proxy %s's, written by svclab's renderer (--engine native)", patch)
}

func dataplanesOf(runs []results.FairnessRun) []string {
	var out []string
	for _, r := range runs {
		if !slices.Contains(out, r.Dataplane) {
			out = append(out, r.Dataplane)
		}
	}
	return out
}

// splitLine is one fairness run's verdict: the shares against the
// expected ones, the test, and whether the kernel's counters agree.
func splitLine(r results.FairnessRun, nameService bool) string {
	who := r.Dataplane
	if nameService {
		who += " " + r.Service
	}
	if r.ExpectDropped {
		return who + ": " + droppedVerdict(r)
	}
	if r.Mode == "keepalive" {
		return who + ": " + KeepaliveVerdict(r) + witness(r)
	}
	shares := make([]string, len(r.Endpoints))
	for i, e := range r.Endpoints {
		shares[i] = percent(e.Share)
	}
	line := fmt.Sprintf("%s: %s of %s %s (expected %s); chi-square p %s: %s",
		who, strings.Join(shares, " / "), thousands(int64(servedTotal(r))), servedUnit(r), expectedShares(r), formatP(r.ChiSquareP), verdict(r.ChiSquareP))
	return line + witness(r)
}

// servedTotal is what the servers counted: connections, or requests in
// keep-alive mode.
func servedTotal(r results.FairnessRun) uint64 {
	var n uint64
	for _, e := range r.Endpoints {
		n += e.Count
	}
	return n
}

// servedUnit names what the servers counted.
func servedUnit(r results.FairnessRun) string {
	if r.Mode == "keepalive" {
		return "requests"
	}
	return "connections"
}

// expectedShares is "50% each", or the list when they differ.
func expectedShares(r results.FairnessRun) string {
	if len(r.Endpoints) == 0 {
		return "none"
	}
	parts := make([]string, len(r.Endpoints))
	same := true
	for i, e := range r.Endpoints {
		parts[i] = percent(e.Expected)
		same = same && math.Abs(e.Expected-r.Endpoints[0].Expected) < 1e-9
	}
	if same {
		return parts[0] + " each"
	}
	return strings.Join(parts, " / ")
}

// witness says what the kernel's own counters say.
func witness(r results.FairnessRun) string {
	switch {
	case r.KernelCounter == "":
		return ""
	case r.CountsAgree && r.Mode == "keepalive":
		return "; the kernel's counters agree with the connections (" + r.KernelCounter + ")"
	case r.CountsAgree:
		return "; the kernel's counters agree (" + r.KernelCounter + ")"
	}
	return "; the kernel's counters DIFFER (" + r.KernelCounter + ")"
}

// slopeLine: "first-packet p50 to the last service: iptables-nft +9.7 ns
// per service [8.1, 11.3] (R² 0.88); nftables, ebpf: flat".
func slopeLine(fits []results.Fit) string {
	position := headlinePosition(fits)
	var growing, flat []string
	for _, f := range fits {
		if f.Metric != metric.P50 || f.Position != position {
			continue
		}
		if f.SlopeCI95[0] <= 0 && f.SlopeCI95[1] >= 0 || math.Abs(f.SlopeNsPerService) < FlatNsPerService {
			flat = append(flat, f.Dataplane)
			continue
		}
		growing = append(growing, fmt.Sprintf("%s %+.1f ns per service [%s, %s] (R² %.2f)", f.Dataplane, f.SlopeNsPerService,
			metric.FormatNumber(f.SlopeCI95[0]), metric.FormatNumber(f.SlopeCI95[1]), f.R2))
	}
	if len(growing)+len(flat) == 0 {
		return ""
	}
	parts := growing
	if len(flat) > 0 {
		parts = append(parts, strings.Join(flat, ", ")+": flat")
	}
	return fmt.Sprintf("first-packet p50 to the %s service, per added service: %s", position, strings.Join(parts, "; "))
}

// headlinePosition is "last" when the fits have it (the worst case of a
// linear walk), else the first position they have.
func headlinePosition(fits []results.Fit) string {
	for _, f := range fits {
		if f.Position == "last" {
			return "last"
		}
	}
	if len(fits) > 0 {
		return fits[0].Position
	}
	return ""
}

// syncLine: "full sync at 10,000 services: iptables-nft 1.24 s, nftables 89.1 ms".
func syncLine(points []results.Point) string {
	largest := map[string]results.Point{}
	var order []string
	for _, p := range points {
		if p.SyncFullS == 0 {
			continue
		}
		q, seen := largest[p.Dataplane]
		if !seen {
			order = append(order, p.Dataplane)
		}
		if !seen || p.Services > q.Services {
			largest[p.Dataplane] = p
		}
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, d := range order {
		p := largest[d]
		parts[i] = fmt.Sprintf("%s %s at %s services", d, metric.FormatSeconds(p.SyncFullS), thousands(int64(p.Services)))
	}
	return "full sync: " + strings.Join(parts, ", ")
}

// percent is a share as "50.1%".
func percent(share float64) string { return fmt.Sprintf("%.1f%%", 100*share) }

// formatP prints a p-value as a relation without an exponent, to follow
// "p": "= 0.0560", "< 0.0001".
func formatP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return fmt.Sprintf("= %.4f", p)
}

// thousands prints n with thousands separators: 20,000.
func thousands(n int64) string { return metric.Thousands(float64(n)) }

// KeepaliveVerdict states what a keep-alive run tested and found: the
// requests' split and the connections' split side by side, each with its
// chi-square test against the expected shares, and whether the skew
// showed: "requests 52.0% / 48.0% of 12,500 (chi-square p < 0.0001: NOT
// the expected split); connections 13 / 12 of 25 (p = 0.8415: consistent
// with it): skew shown: the kernel balances connections, and each
// connection's requests go where it went".
func KeepaliveVerdict(r results.FairnessRun) string {
	shares := make([]string, len(r.Endpoints))
	conns := make([]string, len(r.Endpoints))
	var total uint64
	for i, e := range r.Endpoints {
		shares[i] = percent(e.Share)
		conns[i] = fmt.Sprint(e.Connections)
		total += e.Connections
	}
	line := fmt.Sprintf("requests %s of %s (expected %s; chi-square p %s: %s)", strings.Join(shares, " / "),
		thousands(int64(servedTotal(r))), expectedShares(r), formatP(r.ChiSquareP), splitWord(r.ChiSquareP))
	if r.ConnChiSquareP == nil {
		return line
	}
	line += fmt.Sprintf("; connections %s of %s (chi-square p %s: %s)", strings.Join(conns, " / "),
		thousands(int64(total)), formatP(*r.ConnChiSquareP), splitWord(*r.ConnChiSquareP))
	if r.ChiSquareP < SkewP {
		return line + ": SKEW SHOWN: the kernel balanced connections, and each connection's requests went where it went"
	}
	return line + ": no request skew this run"
}

// SkewP is the chi-square p-value below which a split is called not the
// expected one.
const SkewP = 0.01

// splitWord is the verdict of one chi-square test, in a few words.
func splitWord(p float64) string {
	if p < SkewP {
		return "NOT the expected split"
	}
	return "consistent with it"
}
