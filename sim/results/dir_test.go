package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriterAppendsAndReaderToleratesATruncatedLastLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 1000} {
		if err := w.Append(Record{Type: TypePoint, Point: &Point{Dataplane: "nftables", Services: n}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"schema":1,"type":"point","point":{"datapl`) // killed mid-write
	f.Close()
	recs, warnings, err := ReadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].Point.Services != 1000 || len(warnings) != 1 {
		t.Fatalf("records %d, warnings %v", len(recs), warnings)
	}
	if _, err := Create(dir); err == nil {
		t.Fatal("Create reused a run directory that already holds results")
	}
}

func TestSchemaVersions(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{`{"schema":2,"type":"point"}`, "newer than this svclab reads"},
		{`{"schema":0,"type":"point"}`, "not supported"},
		{"not json\n" + `{"schema":1,"type":"point"}`, "r:1: not a result record"},
	}
	for _, tt := range tests {
		_, _, err := DecodeRecords(strings.NewReader(tt.line+"\n"), "r")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.line, err, tt.want)
		}
	}
}

func TestSweepPoints(t *testing.T) {
	p1 := Point{Dataplane: "nftables", Services: 1, Position: "last", Repetition: 1}
	p2 := Point{Dataplane: "nftables", Services: 1, Position: "uniform", Repetition: 1}
	records := []Record{
		{Type: TypePoint, Point: &p1},
		{Type: TypeWalkProbe, Point: &p2},
		{Type: TypePoint},
		{Type: TypePoint, Point: &p2},
	}
	got := SweepPoints(records)
	if len(got) != 2 || got[0].Position != "last" || got[1].Position != "uniform" {
		t.Errorf("SweepPoints = %+v, want the two point records in order", got)
	}
}
