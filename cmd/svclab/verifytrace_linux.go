package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/svclab/svclab/lab/verifytrace"
)

func init() {
	register(&command{name: "verify-trace", summary: "check the iptables tracer against the kernel on dumps (root)", usage: verifyTraceUsage, run: runVerifyTrace})
}

const verifyTraceUsage = `Usage: svclab verify-trace [--packets N] [--seed S] [--json] DUMP...

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

Examples:
  sudo svclab verify-trace lab/verifytrace/testdata/*.rules
  sudo svclab verify-trace --packets 5000 --json node-dump.rules | jq '.[].disagreed'
`

func runVerifyTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify-trace")
	packets := fs.Int("packets", 1300, "")
	seed := fs.Uint64("seed", 1, "")
	asJSON := fs.Bool("json", false, "")
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
	bad := 0
	for _, d := range dumps {
		res, err := verifytrace.VerifyFile(d, verifytrace.Options{Packets: *packets, Seed: *seed, Done: ctx.Done()})
		if err != nil && ctx.Err() != nil {
			return &exitError{code: in.exitCode(), msg: fmt.Sprintf("%s: %v: stopped; the scratch lab was removed", d, in.name())}
		}
		if err != nil {
			return err
		}
		results = append(results, res)
		bad += res.Disagreed
		if !*asJSON {
			fmt.Fprintf(stdout, "%s: %d packets (%d established), %d agreed, %d unknown, %d disagreed\n", res.Dump, res.Packets, res.Established, res.Agreed, res.Unknown, res.Disagreed)
			for _, e := range res.Examples {
				fmt.Fprintf(stdout, "  %s\n", e)
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return err
		}
	}
	if bad > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d packets disagree with the kernel", bad)}
	}
	return nil
}
