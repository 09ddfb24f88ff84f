package cluster

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The markers around a cell's run directory in its pod's log. The log
// holds the run's progress too (stderr), so the archive is found by them.
const (
	beginMarker = "-----BEGIN SVCLAB CELL-----"
	endMarker   = "-----END SVCLAB CELL-----"
	lineWidth   = 76
)

// maxArchive bounds what Unpack reads from one log (a run directory is a few
// MB at most).
const maxArchive = 512 << 20

// Pack writes the files of dir (a run directory, flat or nested) to w as a
// gzipped tar in base64 lines between the markers.
func Pack(w io.Writer, dir fs.FS) error {
	return frame(w, func(tw *tar.Writer) error { return tw.AddFS(dir) })
}

// PackFile writes one file, name holding data, to w as Pack writes a
// directory: the same markers and encoding, so ReadFile finds it.
func PackFile(w io.Writer, name string, data []byte) error {
	return frame(w, func(tw *tar.Writer) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: int64(len(data)), Mode: 0o644}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	})
}

// frame writes what add puts in a tar as a gzipped tar in base64 lines
// between the markers.
func frame(w io.Writer, add func(*tar.Writer) error) error {
	if _, err := fmt.Fprintln(w, beginMarker); err != nil {
		return err
	}
	lw := &lineWriter{w: w}
	b64 := base64.NewEncoder(base64.StdEncoding, lw)
	gz := gzip.NewWriter(b64)
	tw := tar.NewWriter(gz)
	if err := add(tw); err != nil {
		return fmt.Errorf("pack the archive: %w", err)
	}
	for _, c := range []io.Closer{tw, gz, b64, lw} {
		if err := c.Close(); err != nil {
			return fmt.Errorf("pack the archive: %w", err)
		}
	}
	_, err := fmt.Fprintln(w, endMarker)
	return err
}

// lineWriter breaks base64 into lines, so log collectors keep them whole.
type lineWriter struct {
	w   io.Writer
	col int
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(lineWidth-l.col, len(p))
		if _, err := l.w.Write(p[:k]); err != nil {
			return n, err
		}
		n, l.col, p = n+k, l.col+k, p[k:]
		if l.col == lineWidth {
			if _, err := io.WriteString(l.w, "\n"); err != nil {
				return n, err
			}
			l.col = 0
		}
	}
	return n, nil
}

func (l *lineWriter) Close() error {
	if l.col > 0 {
		l.col = 0
		_, err := io.WriteString(l.w, "\n")
		return err
	}
	return nil
}

// ErrNoArchive says a log holds no complete cell archive (the pod died
// before packing, or the log was cut).
var ErrNoArchive = errors.New("no complete cell archive in the log")

// Unpack finds the last complete archive in a pod's log and extracts it
// into dir (created). Names leaving dir are refused.
func Unpack(log io.Reader, dir string) error {
	tr, err := openArchive(log)
	if err != nil {
		return err
	}
	return extract(tr, dir)
}

// ReadFile returns the file name of the last complete archive in a pod's
// log (written by Pack or PackFile), without writing anything to disk.
func ReadFile(log io.Reader, name string) ([]byte, error) {
	tr, err := openArchive(log)
	if err != nil {
		return nil, err
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("archive: no %s in it", name)
		}
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		if h.Name == name && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}

// openArchive finds the last complete archive in a pod's log.
func openArchive(log io.Reader) (*tar.Reader, error) {
	data, err := lastArchive(log)
	if err != nil {
		return nil, err
	}
	gz, err := gzip.NewReader(base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)))
	if err != nil {
		return nil, fmt.Errorf("cell archive: %w", err)
	}
	return tar.NewReader(io.LimitReader(gz, maxArchive)), nil
}

func lastArchive(log io.Reader) (string, error) {
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur, last strings.Builder
	in, found := false, false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == beginMarker:
			in = true
			cur.Reset()
		case line == endMarker && in:
			in, found = false, true
			last.Reset()
			last.WriteString(cur.String())
		case in:
			cur.WriteString(line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read the pod's log: %w", err)
	}
	if !found {
		return "", ErrNoArchive
	}
	return last.String(), nil
}

func extract(tr *tar.Reader, dir string) error {
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cell archive: %w", err)
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("cell archive: entry %q leaves the run directory", h.Name)
		}
		target := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeEntry(tr, target)
		default:
			err = fmt.Errorf("cell archive: entry %q is neither a file nor a directory", h.Name)
		}
		if err != nil {
			return err
		}
	}
}

func writeEntry(r io.Reader, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("cell archive: %w", err)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("cell archive: %w", err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("cell archive: write %s: %w", target, err)
	}
	return f.Close()
}
