package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

// TestEveryCommandAcceptsFormat walks the command table: every command a
// user can type takes --format, refuses an unknown format while parsing
// its flags, naming the formats it offers, and accepts the first it names
// (text, or export's bench). A command added to the table is covered
// without a change here.
func TestEveryCommandAcceptsFormat(t *testing.T) {
	for _, name := range commandNames() {
		c, ok := commands[name]
		if !ok || strings.HasSuffix(c.summary, "(Linux only)") {
			continue // help is not a command; a stub off Linux parses nothing
		}
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{name, "--format", "nosuch"}, &stdout, &stderr)
			_, offered, ok := strings.Cut(stderr.String(), `invalid value "nosuch" for flag -format: want `)
			if code != 2 || !ok {
				t.Fatalf("svclab %s --format nosuch: exit %d, stderr %q; want exit 2 naming the formats", name, code, stderr.String())
			}
			first := strings.Trim(strings.Fields(offered)[0], ",")
			stdout.Reset()
			stderr.Reset()
			if code := dispatch([]string{name, "--format", first, "--help"}, &stdout, &stderr); code != 0 {
				t.Errorf("svclab %s --format %s --help: exit %d, want 0; stderr: %s", name, first, code, stderr.String())
			}
		})
	}
}

func TestFormatFlag(t *testing.T) {
	tests := []struct {
		offered []outputFormat
		args    []string
		want    outputFormat
		wantErr bool
	}{
		{[]outputFormat{formatText, formatJSON}, nil, formatText, false},
		{[]outputFormat{formatText, formatJSON}, []string{"--json"}, formatJSON, false},
		{[]outputFormat{formatText, formatJSON}, []string{"--json=false"}, formatText, false},
		{[]outputFormat{formatText, formatMarkdown}, []string{"--format", "md"}, formatMarkdown, false},
		{[]outputFormat{formatText, formatMarkdown}, []string{"--format", "Markdown"}, formatMarkdown, false},
		{[]outputFormat{formatText, formatMarkdown}, []string{"--json"}, formatText, true}, // no json: no alias
		{[]outputFormat{formatText}, []string{"--format", "csv"}, formatText, true},
	}
	for _, tt := range tests {
		fs := newFlagSet("x")
		f := addFormatFlag(fs, tt.offered...)
		err := fs.Parse(tt.args)
		if (err != nil) != tt.wantErr || f.value != tt.want {
			t.Errorf("offered %v, args %q: format %q, err %v; want %q, error %v", tt.offered, tt.args, f.value, err, tt.want, tt.wantErr)
		}
	}
	var _ flag.Value = &formatFlag{}
}

func TestTableFormats(t *testing.T) {
	tb := &table{header: []string{"name", "what"}}
	tb.add("a|b", "x,y")
	tb.add("c", "line\nbreak")
	tests := []struct {
		format outputFormat
		want   string
	}{
		{formatText, "name  what\na|b   x,y\nc     line\nbreak\n"},
		{formatMarkdown, "| name | what |\n| --- | --- |\n| a\\|b | x,y |\n| c | line break |\n"},
		{formatCSV, "name,what\na|b,\"x,y\"\nc,\"line\nbreak\"\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := tb.write(&b, tt.format); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.format, b.String(), tt.want)
		}
	}
	var b bytes.Buffer
	if err := tb.write(&b, formatJSON); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 2 || rows[0]["name"] != "a|b" || rows[1]["what"] != "line\nbreak" {
		t.Errorf("json: %s (%v)", b.String(), err)
	}
}
