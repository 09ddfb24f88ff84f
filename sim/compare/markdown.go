package compare

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY or a PR comment: the two runs, a table with the
// same columns as WriteText, then the warnings as a list.
func WriteMarkdown(w io.Writer, res *Result) error {
	fmt.Fprintf(w, "### svclab compare\n\n- base: `%s`\n- new: `%s`\n- matching: %s\n\n",
		res.Base.Describe(), res.New.Describe(), res.Matching)
	fmt.Fprintf(w, "Medians ± %s intervals; Mann-Whitney U test at alpha %v; \"~\": no significant change.\n\n",
		pct(res.Confidence), res.Alpha)
	fmt.Fprintln(w, "| metric | point | base | new | delta | p | change |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | --- | --- |")
	for _, r := range res.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(MetricLabel(r.Metric)), mdCell(r.Point()),
			FormatSummary(r.BaseStats), FormatSummary(r.NewStats), mdCell(FormatDelta(r)), FormatP(r), changeWord(r.Change))
	}
	if warnings := AllWarnings(res); len(warnings) > 0 {
		fmt.Fprintln(w, "\n**Warnings**")
		fmt.Fprintln(w)
		for _, s := range warnings {
			fmt.Fprintf(w, "- %s\n", mdCell(s))
		}
	}
	return nil
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "~", `\~`).Replace(s)
}
