package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "scenarios", summary: "list the embedded scenarios with what each shows", usage: scenariosUsage, run: runScenarios})
}

const scenariosUsage = `Usage: svclab scenarios [--format text|markdown|json|csv]

Lists the scenarios embedded in the binary: name, kind (fairness run or
sweep), dataplanes, how long it takes here (its latest complete run under
./results/runs on this machine, from meta.json's start to the last record;
"not run here" when there is none: nothing is guessed), and the first
sentence of the description. Any of them
can be given by name wherever a scenario is taken (svclab run NAME,
svclab render --scenario NAME); svclab help scenario documents the format
for writing your own.

Options:
  --format text|markdown|json|csv   output format (default text); --json is --format json

Examples:
  svclab scenarios
  svclab scenarios --format json | jq -r '.[].name'
`

// scenarioEntry is one row of the listing.
type scenarioEntry struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Dataplanes []string `json:"dataplanes"`
	Summary    string   `json:"summary"`
	// TakesHere is how long the latest complete run of it under
	// ./results/runs took on this machine ("not run here" when none).
	TakesHere string `json:"takes_here"`
}

func runScenarios(args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("scenarios")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON, formatCSV)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("svclab scenarios takes no arguments")
	}
	entries, err := embeddedScenarios()
	if err != nil {
		return err
	}
	if format.value == formatJSON {
		return writeJSON(stdout, entries)
	}
	return scenarioTable(entries).write(stdout, format.value)
}

// embeddedScenarios loads every embedded scenario for its listing.
func embeddedScenarios() ([]scenarioEntry, error) {
	var out []scenarioEntry
	took := tookHere()
	for _, name := range scenario.Names() {
		s, err := scenario.Load(name)
		if err != nil {
			return nil, fmt.Errorf("embedded scenario %s: %w", name, err)
		}
		e := entryOf(s)
		d, ok := took[name]
		e.TakesHere = tookText(d, ok)
		out = append(out, e)
	}
	return out, nil
}

func entryOf(s *scenario.Scenario) scenarioEntry {
	e := scenarioEntry{Name: s.Name, Kind: "rules only", Summary: firstSentence(s.Description)}
	switch {
	case s.Sweep != nil:
		e.Kind, e.Dataplanes = "sweep", s.Sweep.Dataplanes
	case s.Fairness != nil:
		e.Kind, e.Dataplanes = "fairness", s.Fairness.Dataplanes
	}
	return e
}

// firstSentence is text's first sentence on one line.
func firstSentence(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}

func scenarioTable(entries []scenarioEntry) *table {
	t := &table{header: []string{"NAME", "KIND", "DATAPLANES", "TAKES HERE", "WHAT IT SHOWS"}}
	for _, e := range entries {
		t.add(e.Name, e.Kind, strings.Join(e.Dataplanes, ","), e.TakesHere, e.Summary)
	}
	return t
}
