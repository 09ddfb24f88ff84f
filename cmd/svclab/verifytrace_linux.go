package main

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/lab/verifytrace"
)

func init() {
	register(&command{name: "verify-trace", summary: "check the iptables tracer against the kernel on dumps (root)", usage: verifyTraceUsage, run: runVerifyTrace})
}

const verifyTraceUsage = `Usage: svclab verify-trace [--packets N] [--seed S] [--format F] DUMP...

Loads each dump into a scratch node namespace (svl-vt-*), sends N random
packets drawn from the addresses and ports it mentions, from a client
namespace and from the node itself, and compares what the kernel did with
what the tracer predicts: for iptables-save and ip6tables-save dumps, which
rules' counters moved; for nft list ruleset dumps, the rules nft monitor
trace reports. An iptables-nft-save dump with DUMP.hostnft next to it (the
host's other nftables tables) is loaded with iptables-nft-restore and nft -f
and checked as one walk. Every third packet the node accepted from the
client is followed by a reply through conntrack and the connection's next
packet, traced with state established. A dump's "# verify-trace: local=A,B
ifaces=X,Y family=ip6" lines name the node's addresses, the interfaces to
create and the family. Needs root; removes everything it creates, also
on SIGINT or SIGTERM (exit 130 or 143); after kill -9, ` + "`svclab cleanup`" + `
removes the scratch lab (its lease is /run/svclab/svl-vt-PID.lease) and
its nft monitor dies with it.

Exit codes: 0 every packet with a verdict agreed, 1 a disagreement or error,
2 a malformed dump or "# verify-trace:" line (the message names the file and
line), 130/143 interrupted.

Options:
  --packets N    packets per dump (default 1300)
  --seed S       the packets' seed (default 1)
  --progress auto|plain|none
                 a line on stderr as each dump starts (auto and plain), or none
  --format text|markdown|json|csv
                 output (default text: a line per dump, then the total and a
                 PASS/FAIL verdict line; --json is --format json: an array of
                 the dumps' results)

Examples:
  sudo svclab verify-trace lab/verifytrace/testdata/*.rules
  sudo svclab verify-trace --packets 5000 --json node-dump.rules | jq '.[].disagreed'
`

func runVerifyTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify-trace")
	packets := fs.Int("packets", 1300, "")
	seed := fs.Uint64("seed", 1, "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON, formatCSV)
	progress := addProgressFlag(fs)
	dumps, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dumps) == 0 {
		return usagef("give at least one DUMP")
	}
	ctx, in, stop := interruptContext(stderr)
	defer stop()
	var results []verifytrace.Result
	for i, d := range dumps {
		if *progress != progressNone {
			fmt.Fprintf(stderr, "verify-trace: %d/%d %s\n", i+1, len(dumps), d)
		}
		res, err := verifytrace.VerifyFile(d, verifytrace.Options{Packets: *packets, Seed: *seed, Done: ctx.Done()})
		if err != nil && ctx.Err() != nil {
			return &exitError{code: in.exitCode(), msg: fmt.Sprintf("%s: %v: stopped; the scratch lab was removed", d, in.name())}
		}
		if err != nil {
			return err
		}
		results = append(results, res)
		if format.value == formatText {
			fmt.Fprintln(stdout, verifyLine(res))
			for _, e := range res.Examples {
				fmt.Fprintf(stdout, "  %s\n", e)
			}
		}
	}
	total := verifyTotals(results)
	switch format.value {
	case formatJSON:
		if err := writeJSON(stdout, results); err != nil {
			return err
		}
	case formatText:
		fmt.Fprintf(stdout, "total: %s\n%s\n", verifyCounts(total), verifyVerdict(total, len(results)))
	default:
		if err := writeVerifyTable(stdout, format.value, results, total); err != nil {
			return err
		}
	}
	if total.Disagreed > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d packets disagree with the kernel", total.Disagreed)}
	}
	return nil
}

// verifyLine is one dump's line.
func verifyLine(r verifytrace.Result) string {
	return r.Dump + ": " + verifyCounts(r)
}

func verifyCounts(r verifytrace.Result) string {
	return fmt.Sprintf("%d packets (%d established), %d agreed, %d unknown, %d disagreed", r.Packets, r.Established, r.Agreed, r.Unknown, r.Disagreed)
}

// verifyTotals sums the dumps' counts.
func verifyTotals(results []verifytrace.Result) verifytrace.Result {
	var t verifytrace.Result
	for _, r := range results {
		t.Packets += r.Packets
		t.Established += r.Established
		t.Agreed += r.Agreed
		t.Unknown += r.Unknown
		t.Disagreed += r.Disagreed
	}
	return t
}

// verifyVerdict is the last line: what was checked and whether it held.
func verifyVerdict(t verifytrace.Result, dumps int) string {
	if t.Disagreed > 0 {
		return fmt.Sprintf("FAIL: the tracer disagreed with the kernel on %d of %d packets (%d dumps)", t.Disagreed, t.Packets, dumps)
	}
	return fmt.Sprintf("PASS: the tracer agreed with the kernel on all %d packets with a verdict (%d dumps; %d unknown, not counted)", t.Agreed, dumps, t.Unknown)
}

// writeVerifyTable prints the dumps and the total as a table (Markdown or
// CSV); Markdown ends with the verdict.
func writeVerifyTable(w io.Writer, format outputFormat, results []verifytrace.Result, total verifytrace.Result) error {
	t := &table{header: []string{"dump", "packets", "established", "agreed", "unknown", "disagreed"}}
	for _, r := range append(results, total) {
		name := r.Dump
		if name == "" {
			name = "total"
		}
		t.add(name, fmt.Sprint(r.Packets), fmt.Sprint(r.Established), fmt.Sprint(r.Agreed), fmt.Sprint(r.Unknown), fmt.Sprint(r.Disagreed))
	}
	if format == formatMarkdown {
		fmt.Fprint(w, "### svclab verify-trace\n\n")
	}
	if err := t.write(w, format); err != nil {
		return err
	}
	if format == formatMarkdown {
		fmt.Fprintf(w, "\n**%s**\n", verifyVerdict(total, len(results)))
	}
	return nil
}
