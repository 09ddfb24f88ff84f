// Package plot draws svclab's sweep and fairness results with
// gonum.org/v1/plot: latency, CPU, sync time and rule count against the
// number of services (medians joined by lines, each repetition as a faint
// dot, the least-squares fit dashed), and per-endpoint shares of a fairness
// run as bars with 95% intervals.
//
// Plots are deterministic: the same results give byte-identical SVG. Save
// writes each plot as PNG and SVG. Fonts are embedded in the binary
// (Liberation), so no system fonts are needed.
package plot
