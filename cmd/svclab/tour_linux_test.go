package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
)

// tourLine is one line of the README's five-minute tour.
type tourLine struct {
	command, comment string
	// codes are the exit codes the comment allows ("exit 3"); 0 when it
	// names none.
	codes []int
}

var exitRE = regexp.MustCompile(`exit (\d+)`)

// readmeTour parses the first sh block after the README's "## A five-minute
// tour" heading, so the test and the README cannot drift.
func readmeTour(t *testing.T) []tourLine {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "## A five-minute tour\n")
	if !ok {
		t.Fatal(`README.md has no "## A five-minute tour" section`)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("the tour has no ```sh block")
	}
	var lines []tourLine
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, comment, _ := strings.Cut(l, " #")
		tl := tourLine{command: strings.TrimSpace(cmd), comment: strings.TrimSpace(comment)}
		for _, m := range exitRE.FindAllStringSubmatch(tl.comment, -1) {
			code, _ := strconv.Atoi(m[1])
			tl.codes = append(tl.codes, code)
		}
		if len(tl.codes) == 0 {
			tl.codes = []int{0}
		}
		lines = append(lines, tl)
	}
	return lines
}

// TestREADMETourAnnouncesLabTimes: every line of the tour that runs the
// lab says what it takes ("~20 s"), so nobody waits unwarned.
func TestREADMETourAnnouncesLabTimes(t *testing.T) {
	lines := readmeTour(t)
	if len(lines) < 5 {
		t.Fatalf("tour has %d lines", len(lines))
	}
	timeRE := regexp.MustCompile(`~\d+ (s|min)`)
	for _, l := range lines {
		if strings.Contains(l.command, "svclab run") && !timeRE.MatchString(l.comment) {
			t.Errorf("tour line %q runs the lab without saying how long it takes (~N s)", l.command)
		}
	}
}

// TestREADMETour runs every line of the README's five-minute tour in
// order, in a scratch directory, with the svclab built for the tests, and
// checks each exit code. Lines with sudo run the lab (root); make lines
// are what built the binary the test already has.
func TestREADMETour(t *testing.T) {
	labtest.RequireRoot(t)
	bin := svclabBinary(t)
	dir := t.TempDir()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The recorded results the tour reads (results/runs is where its own
	// runs go), the corpus and the scenarios, as in a clone.
	recorded, err := filepath.Glob(filepath.Join(repo, "results", "*"))
	if err != nil {
		t.Fatal(err)
	}
	links := []string{"lab", "scenarios"}
	for _, r := range recorded {
		if name := filepath.Base(r); name != "runs" {
			links = append(links, filepath.Join("results", name))
		}
	}
	for _, link := range links {
		if err := os.Symlink(filepath.Join(repo, link), filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for _, l := range readmeTour(t) {
		if strings.HasPrefix(l.command, "make ") || strings.HasPrefix(l.command, "sudo make ") {
			t.Logf("%s: the test built svclab itself", l.command)
			continue
		}
		runTourLine(t, bin, dir, l)
	}
	t.Logf("the whole tour took %s", time.Since(start).Round(time.Second))
	// A second run of every lab line leaves a second run directory: the
	// lines that read runs must still work with two.
	runs, _ := filepath.Glob(filepath.Join(dir, "results", "runs", "*"))
	for _, r := range runs {
		if out, err := exec.Command("cp", "-a", r, r+"-second").CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", r, err, out)
		}
	}
	for _, l := range readmeTour(t) {
		if !strings.Contains(l.command, "sudo ") {
			runTourLine(t, bin, dir, l)
		}
	}
}

// runTourLine runs one tour line in dir with bash, svclab being bin and
// sudo running its command (the test runs as root), and checks its exit
// code.
func runTourLine(t *testing.T, bin, dir string, l tourLine) {
	t.Helper()
	prelude := "svclab() { " + bin + ` "$@"; }; sudo() { "$@"; }; set -o pipefail; `
	began := time.Now()
	cmd := exec.Command("bash", "-c", prelude+l.command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("%s: %v", l.command, err)
	}
	t.Logf("%s: exit %d in %s", l.command, code, time.Since(began).Round(time.Second))
	if !slices.Contains(l.codes, code) {
		t.Errorf("%s: exit %d, the README allows %v; output:\n%s", l.command, code, l.codes, tail(string(out), 2000))
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
