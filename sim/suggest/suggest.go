// Package suggest finds the known word a user most likely meant: the
// "did you mean" of svclab's commands, flags and scenario names.
package suggest

import "strings"

// Closest returns the candidate nearest to word by edit distance (case
// ignored), when it is near enough to be a typo: at most one edit for
// words of up to four letters, two up to eight, three beyond; or a
// candidate that word is the only prefix of. ok is false when none is.
func Closest(word string, candidates []string) (best string, ok bool) {
	w := strings.ToLower(word)
	bestDist := maxDistance(w) + 1
	for _, c := range candidates {
		if d := distance(w, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist <= maxDistance(w) {
		return best, true
	}
	return onlyPrefixed(w, candidates)
}

// maxDistance is the largest edit distance taken for a typo of w.
func maxDistance(w string) int {
	switch n := len([]rune(w)); {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// onlyPrefixed returns the one candidate starting with w (at least two
// letters), if exactly one does.
func onlyPrefixed(w string, candidates []string) (string, bool) {
	if len(w) < 2 {
		return "", false
	}
	found := ""
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), w) {
			if found != "" {
				return "", false
			}
			found = c
		}
	}
	return found, found != ""
}

// distance is the optimal-string-alignment distance between a and b, by
// runes: insertions, deletions, substitutions and swaps of two neighbours
// ("rnu" for "run") each count one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Hint is " (did you mean X?)" for the closest candidate, or "".
func Hint(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}
