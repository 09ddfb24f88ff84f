package ipvs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// Parts holds the three payloads of a combined file, without headers.
type Parts struct {
	IPVSAdm, IPSet, IPTables []byte
}

// Split reads a file written by Render and returns its three payloads.
func Split(r io.Reader) (Parts, error) {
	var bufs [numParts]bytes.Buffer
	err := SplitTo(r, func(p Part) io.Writer { return &bufs[p] })
	return Parts{IPVSAdm: bufs[PartIPVSAdm].Bytes(), IPSet: bufs[PartIPSet].Bytes(), IPTables: bufs[PartIPTables].Bytes()}, err
}

// SplitTo streams a file written by Render into one writer per part, as
// chosen by dst, without holding the file in memory. Every part must
// appear exactly once; only blank lines may precede the first header.
func SplitTo(r io.Reader, dst func(Part) io.Writer) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var seen [numParts]bool
	var cur io.Writer
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("combined ipvs file line %d: longer than %d bytes", lineNo, br.Size())
		}
		if len(line) > 0 {
			if w, isHeader, herr := switchPart(line, &seen); herr != nil {
				return fmt.Errorf("combined ipvs file line %d: %w", lineNo, herr)
			} else if isHeader {
				cur = dst(w)
			} else if cur != nil {
				if _, werr := cur.Write(line); werr != nil {
					return fmt.Errorf("combined ipvs file line %d: %w", lineNo, werr)
				}
			} else if len(bytes.TrimSpace(line)) > 0 {
				return fmt.Errorf("combined ipvs file line %d: content before the first part header", lineNo)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read combined ipvs file: %w", err)
		}
	}
	for p := Part(0); p < numParts; p++ {
		if !seen[p] {
			return fmt.Errorf("combined ipvs file: no %q header", p.Header())
		}
	}
	return nil
}

// switchPart recognises a header line and marks its part seen.
func switchPart(line []byte, seen *[numParts]bool) (Part, bool, error) {
	if line[0] != '#' {
		return 0, false, nil
	}
	text := string(bytes.TrimRight(line, "\r\n"))
	for p := Part(0); p < numParts; p++ {
		if text != p.Header() {
			continue
		}
		if seen[p] {
			return p, true, fmt.Errorf("part %q appears twice", p.Header())
		}
		seen[p] = true
		return p, true, nil
	}
	return 0, false, nil
}
