package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"text/tabwriter"

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
  --json        the whole report as JSON

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
	asJSON := fs.Bool("json", false, "")
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
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return printAnalysis(stdout, rep, *top)
}

func printAnalysis(w io.Writer, rep *analyze.Report, top int) error {
	fmt.Fprintf(w, "%s dump: %d services; rules per first packet: worst %d, mean %.1f, p99 %d; %d with a non-uniform split; %d unknown, %d with undecided matches\n",
		rep.Dump, len(rep.Services), rep.Worst, rep.Mean, rep.P99, rep.Flagged, rep.Unknown, rep.WithUndecided)
	rows := append([]analyze.ServiceRow(nil), rep.Services...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RulesEvaluated > rows[j].RulesEvaluated })
	if top > 0 && len(rows) > top {
		rows = rows[:top]
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nservice\tposition\tdestination\tendpoints\trules\tmap lookups\tmax deviation\tverdict")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s/%s\t%d\t%d\t%d\t%.2g\t%s\n", r.Service, r.Position, r.Destination, r.Protocol, r.Endpoints, r.RulesEvaluated, r.MapLookups, r.MaxDeviation, r.Verdict)
	}
	if err := tw.Flush(); err != nil {
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
