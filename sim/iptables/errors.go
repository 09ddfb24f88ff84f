package iptables

import "fmt"

// ParseError is an error found in a dump, with the 1-based line it is on.
type ParseError struct {
	Line int
	Err  error
}

// Error returns "line N: what is wrong".
func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

func lineErrorf(line int, format string, args ...any) error {
	return &ParseError{Line: line, Err: fmt.Errorf(format, args...)}
}
