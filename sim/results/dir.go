package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/sim/atomicfile"
)

// File names inside a run directory.
const (
	ResultsFile = "results.jsonl"
	MetaFile    = "meta.json"
	SummaryFile = "summary.json"
)

// Writer appends records to a run directory's results.jsonl. Each record is
// written and synced before Append returns, so a crash loses at most the
// record being written.
type Writer struct {
	dir    string
	f      *os.File
	offset int64 // end of the last whole record
	failed error // set by a failed append; every later append returns it
}

// Create makes the run directory (which must not hold results yet) and
// opens results.jsonl for appending. Under sudo, the directories and the
// file it creates belong to the invoking user (atomicfile.GiveToInvoker).
func Create(dir string) (*Writer, error) {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, ResultsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w (choose another --out directory)", path, err)
	}
	atomicfile.GiveToInvoker(path)
	return &Writer{dir: dir, f: f}, nil
}

// Reopen opens an existing run directory's results.jsonl for appending,
// after cutting off a torn last line (a writer killed mid-record), e.g. to
// close a run that a guest kernel wrote with an interrupted record.
func Reopen(dir string) (*Writer, error) {
	path := filepath.Join(dir, ResultsFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	end := int64(bytes.LastIndexByte(data, '\n') + 1)
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, fmt.Errorf("cut the torn tail of %s: %w", path, err)
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &Writer{dir: dir, f: f, offset: end}, nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes one record as one JSON line in one write and syncs it to
// disk. If the write or the sync fails (a full disk), the file is cut back
// to the last whole record, the error (naming the file) is returned, and
// every later Append returns it too: a run stops at its first lost record.
func (w *Writer) Append(r Record) error {
	if w.failed != nil {
		return w.failed
	}
	r.Schema = SchemaVersion
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", r.Type, err)
	}
	line = append(line, '\n')
	n, err := w.f.Write(line)
	if err == nil {
		err = w.f.Sync()
	}
	if err != nil {
		_ = w.f.Truncate(w.offset)
		_ = w.f.Sync()
		w.failed = fmt.Errorf("append a %s record to %s (wrote %d of %d bytes; the file ends at the last whole record): %w", r.Type, w.f.Name(), n, len(line), err)
		return w.failed
	}
	w.offset += int64(n)
	return nil
}

// Close closes results.jsonl.
func (w *Writer) Close() error { return w.f.Close() }

// WriteJSON writes v as indented JSON to name inside the run directory,
// through a temporary file so a crash never leaves half a file, and a
// failure (a full disk) no temporary file (see sim/atomicfile).
func WriteJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return atomicfile.Write(filepath.Join(dir, name), append(data, '\n'), 0o644)
}

// ReadRecords reads results.jsonl from a run directory or a .jsonl path. A
// truncated last line (a run killed while writing) is dropped with a warning;
// any other malformed line is an error naming its line number.
func ReadRecords(path string) ([]Record, []string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, ResultsFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open results: %w", err)
	}
	defer f.Close()
	return DecodeRecords(f, path)
}

// DecodeRecords reads JSON-lines records from r; name is used in errors.
// A record with an impossible value (a negative latency, a p-value above 1,
// anything above MaxValue) or given twice (a repetition measured again, a
// line repeated) is an error naming its line.
func DecodeRecords(r io.Reader, name string) ([]Record, []string, error) {
	var (
		out      []Record
		warnings []string
		pending  error
		dups     seen
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if pending != nil {
			return nil, nil, pending
		}
		var rec Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			pending = fmt.Errorf("%s:%d: not a result record: %w", name, n, err)
			continue
		}
		if err := checkSchema(rec.Schema, fmt.Sprintf("%s:%d", name, n)); err != nil {
			return nil, nil, err
		}
		if err := rec.check(); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if err := dups.again(rec, line, n); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	if pending != nil {
		warnings = append(warnings, fmt.Sprintf("%s: the last line is incomplete (the run was interrupted); it was skipped", name))
	}
	return out, warnings, nil
}

// checkSchema accepts the versions this svclab reads.
func checkSchema(v int, where string) error {
	switch {
	case v == SchemaVersion:
		return nil
	case v > SchemaVersion:
		return fmt.Errorf("%s: result schema version %d is newer than this svclab reads (%d); use a newer svclab", where, v, SchemaVersion)
	default:
		return fmt.Errorf("%s: result schema version %d is not supported (this svclab reads version %d); re-run the scenario", where, v, SchemaVersion)
	}
}

// ReadSummary reads summary.json from a run directory.
func ReadSummary(dir string) (*Summary, error) {
	var s Summary
	path := filepath.Join(dir, SummaryFile)
	if err := readJSON(path, &s); err != nil {
		return nil, err
	}
	if err := checkSchema(s.Schema, path); err != nil {
		return &s, err
	}
	for i := range s.Points {
		if err := (Record{Type: TypePoint, Point: &s.Points[i]}).check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for i := range s.Runs {
		if err := (Record{Type: TypeFairness, Fairness: &s.Runs[i]}).check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &s, nil
}

// ReadMeta reads meta.json from a run directory.
func ReadMeta(dir string) (*Meta, error) {
	var m Meta
	if err := readJSON(filepath.Join(dir, MetaFile), &m); err != nil {
		return nil, err
	}
	return &m, checkSchema(m.Schema, filepath.Join(dir, MetaFile))
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist: is this a svclab run directory? (%w)", path, os.ErrNotExist)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SweepPoints are the sweep points among records (type point), every
// position's repetitions in the order recorded.
func SweepPoints(records []Record) []Point {
	var out []Point
	for _, r := range records {
		if r.Type == TypePoint && r.Point != nil {
			out = append(out, *r.Point)
		}
	}
	return out
}
