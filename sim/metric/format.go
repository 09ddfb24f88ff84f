package metric

import (
	"fmt"
	"math"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// FitValue returns the fitted value of fit, which was computed for m, at n
// services, in m's unit.
func FitValue(m Metric, fit results.Fit, n float64) float64 {
	return (fit.InterceptUs*1e3 + fit.SlopeNsPerService*n) / m.NsPerUnit
}

// FormatSlope formats a fit's slope and its 95% interval, e.g.
// "21.3 ns/service [19.8, 22.9]".
func FormatSlope(fit results.Fit) string {
	return fmt.Sprintf("%s ns/service [%s, %s]",
		FormatNumber(fit.SlopeNsPerService), FormatNumber(fit.SlopeCI95[0]), FormatNumber(fit.SlopeCI95[1]))
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
