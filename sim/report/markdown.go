package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/atomicfile"
	"github.com/svclab/svclab/sim/results"
)

// ReportFile is the name of the Markdown report inside a run directory.
const ReportFile = "report.md"

// Report lists what WriteReport wrote.
type Report struct {
	// Markdown is the path of report.md.
	Markdown string `json:"report"`
	// Plots are the paths of the plot files, PNG and SVG, in report order.
	Plots []string `json:"plots"`
}

// WriteReport reads a run directory (see LoadRun: a run killed half way
// gets a report rebuilt from results.jsonl), draws its plots into
// dir/plots/ as PNG and SVG, and writes dir/report.md: the environment, the
// warnings, the sweep's points and fits, the plots (linked relatively) and,
// for fairness runs, one table and bar chart per run.
func WriteReport(dir string) (Report, error) {
	run, err := LoadRun(dir)
	if err != nil {
		return Report{}, err
	}
	var (
		rep     Report
		sweep   []plotFile
		fairPFs = map[int]plotFile{}
	)
	for _, spec := range sweepPlots(run) {
		pf, paths, ok, err := savePlot(dir, spec)
		rep.Plots = append(rep.Plots, paths...)
		if err != nil {
			return rep, err
		}
		if ok {
			sweep = append(sweep, pf)
		}
	}
	for i, r := range run.Summary.Runs {
		if err := saveIndexed(dir, fairnessPlot(i, r), i, fairPFs, &rep); err != nil {
			return rep, err
		}
	}
	timelinePFs := map[int]plotFile{}
	for i, r := range run.Summary.Timelines {
		if err := saveIndexed(dir, timelinePlot(i, r), i, timelinePFs, &rep); err != nil {
			return rep, err
		}
	}
	overview, paths, err := saveOverviewPlots(dir, run.Summary.Runs)
	rep.Plots = append(rep.Plots, paths...)
	if err != nil {
		return rep, err
	}
	var md bytes.Buffer
	writeMarkdown(&md, run, sweep, fairPFs, overview)
	writeTimelines(&md, run.Summary.Timelines, timelinePFs)
	rep.Markdown = filepath.Join(dir, ReportFile)
	return rep, writeFileAtomic(rep.Markdown, md.Bytes())
}

// saveIndexed saves the plot of the i-th run into pfs[i] (when it has
// data) and lists its files in rep.
func saveIndexed(dir string, spec plotSpec, i int, pfs map[int]plotFile, rep *Report) error {
	pf, paths, ok, err := savePlot(dir, spec)
	rep.Plots = append(rep.Plots, paths...)
	if ok && err == nil {
		pfs[i] = pf
	}
	return err
}

// writeFileAtomic writes through a temporary file so that a crash never
// leaves half a report, and never through a link (see sim/atomicfile).
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o644)
}

// writeMarkdown renders the whole report.
func writeMarkdown(w io.Writer, run *Run, sweep []plotFile, fairness map[int]plotFile, overview []plotFile) {
	s := run.Summary
	fmt.Fprintf(w, "# svclab report: %s\n\n", title(s))
	switch {
	case !s.Complete && s.Planned > 0:
		fmt.Fprintf(w, "> **Incomplete run:** %d of %d planned measurements were made; the figures below cover only those.\n\n", s.Measured, s.Planned)
	case !s.Complete:
		fmt.Fprintf(w, "> **Incomplete run:** the run did not finish; the figures below cover only the completed measurements.\n\n")
	}
	if lines := Headline(s, run.Meta); len(lines) > 0 {
		fmt.Fprintf(w, "## Findings\n\n")
		for _, l := range lines {
			fmt.Fprintf(w, "- %s\n", cell(l))
		}
		fmt.Fprintln(w)
	}
	writeEnvironment(w, run.Meta)
	writeWarnings(w, s.Warnings)
	if len(s.Points) > 0 {
		writePointsTable(w, s.Points)
		writeFitsTable(w, s.Fits)
	}
	if len(sweep) > 0 {
		fmt.Fprintf(w, "## Plots\n\n")
		for _, pf := range sweep {
			writeImage(w, "###", pf)
		}
	}
	writeFairness(w, s.Runs, fairness, overview)
}

func title(s *results.Summary) string {
	t := strings.TrimSpace(s.Scenario + " " + s.Kind)
	if t == "" {
		t = "unnamed run"
	}
	if s.Run != "" {
		t += " (" + s.Run + ")"
	}
	return t
}

// writeEnvironment writes meta.json as a table, and a warning for
// user-mode-linux guests.
func writeEnvironment(w io.Writer, m *results.Meta) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "## Environment\n\n| | |\n|---|---|\n")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "| %s | %s |\n", k, cell(v))
		}
	}
	row("run", m.Run)
	row("scenario", scenarioName(m))
	row("kind", m.Kind)
	row("started", m.Started)
	row("kernel", m.Kernel)
	row("guest kernel", m.GuestKernel)
	row("CPU", cpuName(m))
	row("Go", m.GoVersion)
	row("svclab", joinNonEmpty(m.SvclabVersion, commit(m.GitCommit)))
	row("host", m.Hostname)
	tools := make([]string, 0, len(m.Tools))
	for name := range m.Tools {
		tools = append(tools, name)
	}
	slices.Sort(tools)
	for _, name := range tools {
		row(name, m.Tools[name])
	}
	fmt.Fprintln(w)
	if m.GuestKernel != "" {
		fmt.Fprintf(w, "> **Warning:** measured inside a user-mode-linux guest (kernel %s). UML timings are not host timings: compare dataplanes within this run, not with runs on a host kernel.\n\n", m.GuestKernel)
	}
}

func scenarioName(m *results.Meta) string {
	if m.ScenarioHash == "" {
		return m.Scenario
	}
	return fmt.Sprintf("%s (sha256 %.12s)", m.Scenario, m.ScenarioHash)
}

func cpuName(m *results.Meta) string {
	if m.CPUs == 0 {
		return m.CPU
	}
	return fmt.Sprintf("%s, %d CPUs", m.CPU, m.CPUs)
}

// joinNonEmpty joins the non-empty parts with ", ".
func joinNonEmpty(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), ", ")
}

func commit(c string) string {
	if c == "" {
		return ""
	}
	return "commit " + c
}

func writeWarnings(w io.Writer, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintf(w, "## Warnings\n\n")
	for _, warning := range warnings {
		fmt.Fprintf(w, "- %s\n", warning)
	}
	fmt.Fprintln(w)
}

// writeImage links a plot's PNG and SVG.
func writeImage(w io.Writer, heading string, pf plotFile) {
	fmt.Fprintf(w, "%s %s\n\n![%s](%s)\n\n[SVG](%s)\n\n", heading, pf.caption, pf.caption, pf.png, pf.svg)
}

// cell escapes a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
