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
			fs := newFlagSet("scenario")
			format := addFormatFlag(fs, formatText, formatMarkdown)
			rest, err := parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("svclab help scenario takes no arguments")
			}
			return printResult(stdout, format.value, "svclab scenario files", nil, func(w io.Writer) error {
				_, err := io.WriteString(w, b.String())
				return err
			})
		},
	})
}
