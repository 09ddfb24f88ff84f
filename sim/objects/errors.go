package objects

import (
	"strings"

	"github.com/svclab/svclab/sim/apicheck"
)

// Error is a problem with one object of a file (or with the file itself,
// when Kind is empty).
type Error struct {
	File   string // the file as the user named it
	Kind   string // e.g. "Service"; "" for the file as a whole
	Object string // "namespace/name" (or "name" for a Node)
	Field  string // the field path, e.g. "spec.ports[0].port"
	Msg    string // what is wrong
	Hint   string // what to do, if known
	Err    error  // the underlying error, if any
}

// Error formats "file: Kind ns/name: field: message (hint)", on one line:
// a name that is not a valid one is shown as a short escaped excerpt, and
// control and bidi characters are escaped.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File + ": ")
	if e.Kind != "" {
		b.WriteString(e.Kind)
		if e.Object != "" {
			b.WriteString(" " + apicheck.Show(e.Object))
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return apicheck.OneLine(b.String())
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// objectRef names one object in errors.
type objectRef struct {
	file, kind, name string
}

func (r objectRef) errorf(field, msg, hint string) *Error {
	return &Error{File: r.file, Kind: r.kind, Object: r.name, Field: field, Msg: msg, Hint: hint}
}

func nsName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
