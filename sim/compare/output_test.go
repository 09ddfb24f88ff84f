package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestWriteGolden renders the comparison of the two real runs, and of
// their two dataplanes, in every format.
func TestWriteGolden(t *testing.T) {
	run1 := loadTestRun(t, "run1")
	run2 := loadTestRun(t, "run2.jsonl")
	split := loadTestRun(t, "split2")
	tests := []struct {
		golden    string
		base, new *Run
		opts      Options
		write     func(*bytes.Buffer, *Result) error
	}{
		{"compare.golden.txt", run1, run2, Options{}, func(b *bytes.Buffer, r *Result) error { return WriteText(b, r) }},
		{"compare-dataplanes.golden.txt", run1, run2, Options{BaseDataplane: "nftables", NewDataplane: "iptables-nft"},
			func(b *bytes.Buffer, r *Result) error { return WriteText(b, r) }},
		{"compare-fairness.golden.txt", split, split, Options{}, func(b *bytes.Buffer, r *Result) error { return WriteText(b, r) }},
		{"compare.golden.csv", run1, run2, Options{}, func(b *bytes.Buffer, r *Result) error { return WriteCSV(b, r) }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			res, err := Compare(tt.base, tt.new, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := tt.write(&buf, res); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, buf.Bytes())
		})
	}
}

func TestWriteJSON(t *testing.T) {
	res, err := Compare(loadTestRun(t, "run1"), loadTestRun(t, "run2.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var doc jsonResult
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != len(res.Rows) || doc.Alpha != 0.05 || doc.Base.Meta == nil || doc.Base.Meta.Run != "svl-3639" {
		t.Fatalf("decoded %d rows, alpha %v, base meta %+v", len(doc.Rows), doc.Alpha, doc.Base.Meta)
	}
	row := doc.Rows[1] // p50_us iptables-nft/20000/last
	if row.Metric != "p50_us" || row.BasePoint.String() != "iptables-nft/20000/last" || row.Change != "~" || row.Base.N != 5 {
		t.Errorf("row %+v", row)
	}
}

// TestWriteHTML checks the page against a golden file and that it is
// self-contained.
func TestWriteHTML(t *testing.T) {
	tests := []struct {
		golden    string
		base, new *Run
		opts      Options
	}{
		{"compare.golden.html", loadTestRun(t, "run1"), loadTestRun(t, "run2.jsonl"), Options{}},
		{"compare-fairness.golden.html", loadTestRun(t, "split2"), loadTestRun(t, "split2"), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			res, err := Compare(tt.base, tt.new, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteHTML(&buf, res); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			for _, external := range []string{"<script", "<link", "src=", "href=", "@import", "url("} {
				if strings.Contains(page, external) {
					t.Errorf("the page refers to something outside it: %q", external)
				}
			}
			if n := strings.Count(page, "<svg"); n < 2 {
				t.Errorf("%d inline plots, want at least 2", n)
			}
			checkGolden(t, tt.golden, buf.Bytes())
		})
	}
}
