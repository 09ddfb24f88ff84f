package main

import (
	"io"
	"strings"

	"github.com/svclab/svclab/sim/scenario"
)

// The scenario file reference is a help topic (`svclab help scenario`),
// registered as a hidden command so the help mechanism finds it; its text
// is generated from sim/scenario's reference table.
func init() {
	var b strings.Builder
	_ = scenario.Reference(&b)
	register(&command{
		name:    "scenario",
		summary: "the scenario file format (every field, type, default and limit)",
		usage:   b.String(),
		hidden:  true,
		run: func(args []string, stdout, stderr io.Writer) error {
			if len(args) > 0 && args[0] != "-h" && args[0] != "--help" {
				return usagef("svclab help scenario takes no arguments")
			}
			_, err := io.WriteString(stdout, b.String())
			return err
		},
	})
}
