package main

import (
	"io"

	"github.com/svclab/svclab/lab/host"
)

func init() {
	register(&command{name: "doctor", summary: "report which dataplanes this kernel supports and what to install", usage: doctorUsage, run: runDoctor})
}

const doctorUsage = `Usage: svclab doctor [--format text|markdown|json] (--json: --format json)

Probes, inside a scratch network namespace, what the kernel supports (netns,
veth, iptables legacy and nft, nftables, IPVS, conntrack, ipset), lists the
installed tools, says whether a user-mode-linux kernel with IPVS is available
for the ipvs dataplane, and what to install for whatever is missing. Probing
needs root; without it the report says what it could not check.

Examples:
  sudo svclab doctor
  sudo svclab doctor --json | jq '.dataplanes'
`

func runDoctor(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	r := host.Inspect()
	return printResult(stdout, format.value, "svclab doctor", r, r.WriteText)
}
