package conformance

import (
	"regexp"
	"strconv"
	"strings"
)

// lineDiff is a unified-style diff of two texts by lines (longest common
// subsequence), showing only changed lines with one line of context.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Trim the common prefix and suffix to keep the table small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(x)*len(y) > 4e7 {
		return "(texts too different for a line diff: " + itoa(len(x)) + " and " + itoa(len(y)) + " lines differ)\n"
	}
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	if pre > 0 {
		out.WriteString("  " + a[pre-1] + "\n")
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out.WriteString("  " + x[i] + "\n")
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + y[j] + "\n")
			j++
		default:
			out.WriteString("- " + x[i] + "\n")
			i++
		}
	}
	if suf > 0 {
		out.WriteString("  " + a[len(a)-suf] + "\n")
	}
	return out.String()
}

var (
	hashes  = regexp.MustCompile(`[A-Z0-9]{16}|[A-Z2-7]{8}-`)
	numbers = regexp.MustCompile(`[0-9]+`)
)

// diffKind names a difference by its first changed line, with hashes and
// numbers masked, so that one cause is counted (and shrunk) once.
func diffKind(d string) string {
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ") {
			return numbers.ReplaceAllString(hashes.ReplaceAllString(l, "H"), "N")
		}
	}
	return firstLine(d)
}

func itoa(n int) string { return strconv.Itoa(n) }
