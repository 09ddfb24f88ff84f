package compare

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// WriteBench writes a run in the Go benchmark format, so that stock
// benchstat compares two runs (benchstat base.txt new.txt):
//
//	goos: linux
//	pkg: svclab/sweep-quick
//	cpu: Intel(R) Xeon(R) Processor
//	Unit p50-µs assume=nothing better=lower
//	BenchmarkSweep/dataplane=iptables-nft/services=20000/position=last 1 301.2 p50-µs 447 p90-µs ...
//
// One benchmark line per repetition record: sweep points are
// BenchmarkSweep/dataplane=D/services=N/position=P, fairness runs
// BenchmarkFairness/dataplane=D/service=NS.NAME:PORT (the service's "/"
// becomes "." so that it stays one name part). Values are in each metric's
// BenchUnit; metrics not measured (zero) are left out, and sync times
// (measured once per point) appear on the point's first line only. The configuration
// lines are only those benchstat should group by (goos, pkg = the scenario,
// cpu); the rest of the environment is written as "#" comment lines, which
// benchstat ignores.
func WriteBench(w io.Writer, run *Run) error {
	bw := bufio.NewWriter(w)
	writeBenchHeader(bw, run)
	for _, m := range benchUnits(run.Records) {
		better := "lower"
		if m.Direction == LowerIsWorse {
			better = "higher"
		}
		fmt.Fprintf(bw, "Unit %s assume=nothing better=%s\n", m.BenchUnit, better)
	}
	once := onceValues{}
	for _, r := range run.Records {
		if line, ok := benchLine(r, once); ok {
			fmt.Fprintln(bw, line)
		}
	}
	return bw.Flush()
}

// writeBenchHeader writes the configuration and comment lines.
func writeBenchHeader(w io.Writer, run *Run) {
	fmt.Fprintf(w, "# svclab export of %s\n", run.Path)
	fmt.Fprintln(w, "goos: linux")
	m := run.Meta
	if m == nil {
		fmt.Fprintln(w, "# no meta: the environment is unknown")
		return
	}
	fmt.Fprintf(w, "pkg: svclab/%s\n", oneLine(m.Scenario))
	if m.CPU != "" {
		fmt.Fprintf(w, "cpu: %s\n", oneLine(m.CPU))
	}
	comments := [][2]string{{"run", m.Run}, {"started", m.Started}, {"kind", m.Kind}, {"scenario_hash", m.ScenarioHash},
		{"kernel", m.Kernel}, {"guest_kernel", m.GuestKernel}, {"cpus", strconv.Itoa(m.CPUs)}, {"go_version", m.GoVersion},
		{"git_commit", m.GitCommit}, {"svclab_version", m.SvclabVersion}, {"hostname", m.Hostname}}
	for _, tool := range toolNames(m, m) {
		comments = append(comments, [2]string{"tool " + tool, m.Tools[tool]})
	}
	for _, c := range comments {
		if c[1] != "" {
			fmt.Fprintf(w, "# %s: %s\n", c[0], oneLine(c[1]))
		}
	}
}

// benchUnits lists the metrics the records carry, once per bench unit.
func benchUnits(records []results.Record) []Metric {
	var out []Metric
	seen := map[string]bool{}
	for _, r := range records {
		if _, ok := keyOf(r); !ok {
			continue
		}
		for _, m := range metricsOf(r) {
			if !seen[m.BenchUnit] {
				seen[m.BenchUnit] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// onceValues remembers the OncePerPoint values already written per point
// and metric.
type onceValues map[Key]map[string][]float64

// seen says whether v was written for k and m before, and records it.
func (o onceValues) seen(k Key, m Metric, v float64) bool {
	if o[k] == nil {
		o[k] = map[string][]float64{}
	}
	if slices.Contains(o[k][m.Name], v) {
		return true
	}
	o[k][m.Name] = append(o[k][m.Name], v)
	return false
}

// benchLine formats one record as a benchmark line; ok is false for
// records that are not measurements or carry no measured value. A
// OncePerPoint metric (sync time, measured once per point and copied into
// every repetition) is written with the first repetition only, so that
// benchstat counts one sample, not copies.
func benchLine(r results.Record, once onceValues) (string, bool) {
	k, ok := keyOf(r)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString(benchName(k))
	b.WriteString(" 1")
	n := 0
	for _, m := range metricsOf(r) {
		if v, ok := m.value(r); ok && !(m.OncePerPoint && once.seen(k, m, v)) {
			fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(v, 'g', -1, 64), m.BenchUnit)
			n++
		}
	}
	return b.String(), n > 0
}

// benchName is the benchmark name of a point.
func benchName(k Key) string {
	if isFairness(k) {
		return fmt.Sprintf("BenchmarkFairness/dataplane=%s/service=%s", namePart(k.Dataplane), namePart(strings.ReplaceAll(k.Service, "/", ".")))
	}
	return fmt.Sprintf("BenchmarkSweep/dataplane=%s/services=%d/position=%s", namePart(k.Dataplane), k.Services, namePart(k.Position))
}

// namePart keeps a value inside one part of a benchmark name: no "/",
// no white space.
func namePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}

// oneLine keeps a header value on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
