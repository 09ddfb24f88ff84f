package metric

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// FitValue returns the fitted value of fit, which was computed for m, at n
// services, in m's unit.
func FitValue(m Metric, fit results.Fit, n float64) float64 {
	return (fit.InterceptUs*1e3 + fit.SlopeNsPerService*n) / m.NsPerUnit
}

// FormatSlope formats a fit's slope and its 95% interval in the unit the
// slope reads best in, e.g. "21.3 ns/service [19.8, 22.9]", or for a sync
// time "56.4 µs/service [43.1, 69.7]".
func FormatSlope(fit results.Fit) string {
	unit, scale := "ns", 1.0
	switch a := math.Abs(fit.SlopeNsPerService); {
	case a >= 1e6:
		unit, scale = "ms", 1e6
	case a >= 1e3:
		unit, scale = "µs", 1e3
	}
	return fmt.Sprintf("%s %s/service [%s, %s]", FormatNumber(fit.SlopeNsPerService/scale), unit,
		FormatNumber(fit.SlopeCI95[0]/scale), FormatNumber(fit.SlopeCI95[1]/scale))
}

// FormatNumber prints a measured value with a precision that suits its
// size: no decimals from 100, one from 10, two below.
func FormatNumber(v float64) string {
	var s string
	switch a := math.Abs(v); {
	case a >= 100:
		s = fmt.Sprintf("%.0f", v)
	case a >= 10:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	if strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-") // no "-0.00"
	}
	return s
}

// FormatSeconds prints a duration given in seconds in the unit that reads
// best, with FormatNumber's precision and no exponent: "89.1 µs",
// "12.3 ms", "1.24 s", "0 s" only for zero.
func FormatSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a == 0:
		return "0 s"
	case a < 1e-3:
		return FormatNumber(s*1e6) + " µs"
	case a < 1:
		return FormatNumber(s*1e3) + " ms"
	}
	return FormatNumber(s) + " s"
}

// FormatMicros is FormatSeconds for a value in microseconds.
func FormatMicros(us float64) string { return FormatSeconds(us / 1e6) }

// Thousands formats v with separators every three digits and at most
// three significant decimals: 20,000, 1,500, 0.25.
func Thousands(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if math.Abs(v) < 1 {
		return strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(math.Abs(v))))), 64)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if neg {
		intPart = "-" + intPart
	}
	if frac != "" {
		return intPart + "." + frac
	}
	return intPart
}
