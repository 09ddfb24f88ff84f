package main

import (
	"fmt"
	"io"
	"net/netip"
	"sort"

	"github.com/svclab/svclab/sim/analyze"
)

func init() {
	register(&command{name: "analyze", summary: "per-service first-packet cost and split fairness of a rule dump", usage: analyzeUsage, run: runAnalyze})
}

const analyzeUsage = `Usage: svclab analyze --dump FILE [--src IP] [--top N] [--json]

Traces a first packet to every service of a dump (iptables or nftables) and
reports, per service, its position in KUBE-SERVICES (or in the service-ips
map), the rules its first packet evaluates, and whether its split is uniform;
then the worst, mean and p99 rules per first packet over all services, and
how many endpoints services have. No root needed.

Options:
  --dump FILE   the rules (iptables-save -c, nft list ruleset, or svclab render)
  --src IP      the client address (default 10.244.255.1, a pod)
  --top N       list the N most expensive services (default 10; 0 lists all)
  --local IP,.. the node's own addresses
  --ipsets FILE the node's ipsets (ipset save > FILE)
  --format text|markdown|json|csv
                output format (default text; --json is --format json). JSON
                and CSV hold the --top services too, with services_total

Examples:
  svclab render --services 50000 --endpoints 3 > big.txt && svclab analyze --dump big.txt
  sudo iptables-save -c > dump.txt && svclab analyze --dump dump.txt --json | jq '.p99_rules_per_first_packet'
`

func runAnalyze(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("analyze")
	dump := fs.String("dump", "", "")
	src := fs.String("src", "10.244.255.1", "")
	top := fs.Int("top", 10, "")
	local := fs.String("local", "", "")
	ipsets := fs.String("ipsets", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON, formatCSV)
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *dump == "" {
		return usagef("--dump FILE is required")
	}
	s, err := netip.ParseAddr(*src)
	if err != nil {
		return usagef("--src %q: want an IP address", *src)
	}
	_, locals, err := tracePacket("0.0.0.0:0", "tcp", *src, "pod", *local)
	if err != nil {
		return err
	}
	rep, err := analyze.AnalyzeFile(*dump, *ipsets, s, analyze.Options{Local: locals})
	if err != nil {
		return err
	}
	out := analyzeOutput{Report: rep, ServicesTotal: len(rep.Services), Top: *top}
	rep.Services = topServices(rep.Services, *top)
	switch format.value {
	case formatJSON:
		return writeJSON(stdout, out)
	case formatCSV:
		return analysisTable(rep.Services).write(stdout, formatCSV)
	}
	return printAnalysis(stdout, out, format.value)
}

// analyzeOutput is the JSON output: the report with only the --top
// services (0: all), and how many the dump has.
type analyzeOutput struct {
	*analyze.Report
	ServicesTotal int `json:"services_total"`
	Top           int `json:"top"`
}

// topServices are the top services by rules evaluated (all when top ≤ 0).
func topServices(rows []analyze.ServiceRow, top int) []analyze.ServiceRow {
	rows = append([]analyze.ServiceRow(nil), rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RulesEvaluated > rows[j].RulesEvaluated })
	if top > 0 && len(rows) > top {
		rows = rows[:top]
	}
	return rows
}

func analysisTable(rows []analyze.ServiceRow) *table {
	t := &table{header: []string{"service", "position", "destination", "endpoints", "rules", "map lookups", "max deviation", "verdict"}}
	for _, r := range rows {
		t.add(r.Service, fmt.Sprint(r.Position), r.Destination+"/"+r.Protocol, fmt.Sprint(r.Endpoints),
			fmt.Sprint(r.RulesEvaluated), fmt.Sprint(r.MapLookups), fmt.Sprintf("%.2g", r.MaxDeviation), r.Verdict)
	}
	return t
}

func printAnalysis(w io.Writer, out analyzeOutput, format outputFormat) error {
	rep := out.Report
	if format == formatMarkdown {
		fmt.Fprint(w, "### svclab analyze\n\n")
	}
	fmt.Fprintf(w, "%s dump: %d services; rules per first packet: worst %d, mean %.1f, p99 %d; %d with a non-uniform split; %d unknown, %d with undecided matches\n\n",
		rep.Dump, out.ServicesTotal, rep.Worst, rep.Mean, rep.P99, rep.Flagged, rep.Unknown, rep.WithUndecided)
	if err := analysisTable(rep.Services).write(w, format); err != nil {
		return err
	}
	var counts []int
	for n := range rep.Endpoints {
		counts = append(counts, n)
	}
	sort.Ints(counts)
	fmt.Fprint(w, "\nendpoints per service:")
	for _, n := range counts {
		fmt.Fprintf(w, "  %d: %d", n, rep.Endpoints[n])
	}
	fmt.Fprintln(w)
	return nil
}
