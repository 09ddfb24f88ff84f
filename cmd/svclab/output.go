package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// outputFormat is how a command prints its results: the one output
// convention of every command, `--format text|markdown|json|csv`.
type outputFormat string

// The output formats. Markdown is GitHub-flavoured, for
// $GITHUB_STEP_SUMMARY or a PR comment; csv is offered where the result is
// a table.
const (
	formatText     outputFormat = "text"
	formatMarkdown outputFormat = "markdown"
	formatJSON     outputFormat = "json"
	formatCSV      outputFormat = "csv"
)

// formatFlag is a command's --format option. It is a flag.Value that takes
// only the formats the command offers, so a wrong value is a usage error
// while the flags are parsed, before anything runs.
type formatFlag struct {
	value   outputFormat
	offered []outputFormat
}

// addFormatFlag registers --format on fs (the default is the first format
// offered) and, when json is offered, --json as an alias of --format json.
// A command adopts the convention with one line:
//
//	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
//	...
//	switch format.value { case formatJSON: ... }
func addFormatFlag(fs *flag.FlagSet, offered ...outputFormat) *formatFlag {
	if len(offered) == 0 {
		offered = []outputFormat{formatText}
	}
	f := &formatFlag{value: offered[0], offered: offered}
	fs.Var(f, "format", "")
	if slices.Contains(offered, formatJSON) {
		fs.BoolFunc("json", "", func(s string) error {
			on, err := strconv.ParseBool(s)
			if err != nil {
				return err
			}
			if on {
				f.value = formatJSON
			}
			return nil
		})
	}
	return f
}

// String is the current value (flag.Value).
func (f *formatFlag) String() string {
	if f == nil {
		return ""
	}
	return string(f.value)
}

// Set accepts one of the offered formats ("md" is markdown).
func (f *formatFlag) Set(s string) error {
	v := outputFormat(strings.ToLower(strings.TrimSpace(s)))
	if v == "md" {
		v = formatMarkdown
	}
	if !slices.Contains(f.offered, v) {
		return fmt.Errorf("want %s", f.choices())
	}
	f.value = v
	return nil
}

// choices is "text, markdown or json".
func (f *formatFlag) choices() string {
	names := make([]string, len(f.offered))
	for i, o := range f.offered {
		names[i] = string(o)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// writeJSON writes v as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table is tabular output that prints in every format: aligned columns,
// a Markdown table, CSV, or JSON (an array of objects keyed by the header).
type table struct {
	header []string
	rows   [][]string
}

// add appends a row.
func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the table in format.
func (t *table) write(w io.Writer, format outputFormat) error {
	switch format {
	case formatMarkdown:
		return t.markdown(w)
	case formatCSV:
		cw := csv.NewWriter(w)
		cw.Write(t.header)
		cw.WriteAll(t.rows)
		return cw.Error()
	case formatJSON:
		out := make([]map[string]string, len(t.rows))
		for i, r := range t.rows {
			out[i] = map[string]string{}
			for j, h := range t.header {
				if j < len(r) {
					out[i][h] = r[j]
				}
			}
		}
		return writeJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (t *table) markdown(w io.Writer) error {
	line := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = markdownCell(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
	}
	line(t.header)
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	return nil
}

// markdownCell escapes a table cell: pipes and line breaks.
func markdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// markdownText writes plain text output as a Markdown block: a heading,
// then the text in a fenced block, so a text-only result still reads well
// in $GITHUB_STEP_SUMMARY.
func markdownText(w io.Writer, heading, text string) {
	fmt.Fprintf(w, "### %s\n\n```\n%s", heading, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "```")
}

// printResult prints a command's result in format: v as JSON; the text
// printText writes; in Markdown, that text under a heading in a fenced
// block. A command whose text is not a table adopts every format with it.
func printResult(w io.Writer, format outputFormat, heading string, v any, printText func(io.Writer) error) error {
	switch format {
	case formatJSON:
		return writeJSON(w, v)
	case formatMarkdown:
		var b strings.Builder
		if err := printText(&b); err != nil {
			return err
		}
		markdownText(w, heading, b.String())
		return nil
	}
	return printText(w)
}
