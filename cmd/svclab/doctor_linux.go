package main

import (
	"encoding/json"
	"io"

	"github.com/svclab/svclab/lab/host"
)

func init() {
	register(&command{name: "doctor", summary: "report which dataplanes this kernel supports and what to install", usage: doctorUsage, run: runDoctor})
}

const doctorUsage = `Usage: svclab doctor [--json]

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
	asJSON := fs.Bool("json", false, "")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	r := host.Inspect()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return r.WriteText(stdout)
}
