// Package report turns results into what people read: text tables for the
// terminal, report.md and plots. Reporters are plain functions that write to
// an io.Writer.
package report
