package stats

import (
	"math"
	"strings"
	"testing"
)

// Reference values marked "scipy" were computed with python3-scipy 1.10.1
// (numpy 1.24.2, Debian 12 package) outside these tests; the exact
// expression is given next to each value.

// approx reports whether got is within tol of want, relative to |want| when
// |want| > 1 and absolute otherwise.
func approx(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func checkApprox(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !approx(got, want, tol) {
		t.Errorf("%s = %.12g, want %.12g (tolerance %g)", name, got, want, tol)
	}
}

func checkErrorContains(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("want error containing %q, got nil", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

func hasWarning(warnings []string, part string) bool {
	for _, w := range warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func nan() float64 { return math.NaN() }
