package analyze

import (
	"errors"
	"fmt"
)

// DumpError is a dump the user gave that cannot be read as what it claims
// to be: malformed (a bad value, a missing COMMIT, a jump loop), of both
// address families at once, or with a bad verify-trace header. It is bad
// input (the CLI's exit code 2); Err names the line where it can.
type DumpError struct {
	Path string // the file, "" when not known
	Err  error
}

// Error returns "PATH: what is wrong".
func (e *DumpError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *DumpError) Unwrap() error { return e.Err }

// BadDump marks err as a problem of the dump at path. An error that is
// already a DumpError keeps its own, with path filled in when it had none.
func BadDump(path string, err error) error {
	var de *DumpError
	if errors.As(err, &de) {
		if de.Path == "" {
			de.Path = path
		}
		return err
	}
	return &DumpError{Path: path, Err: err}
}

// badDumpf is BadDump of a formatted error without a path.
func badDumpf(format string, args ...any) error {
	return &DumpError{Err: fmt.Errorf(format, args...)}
}
