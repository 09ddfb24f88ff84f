package runner

import "fmt"

// InputError is bad input from the user (a scenario with nothing to run, an
// unknown lab, a run directory already in use): the CLI's exit code 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf makes an InputError; %w wraps as usual.
func inputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}
