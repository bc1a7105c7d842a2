package tla

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a syntax or loading error at a position in a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
	// Err is an optional sentinel (ErrModuleNotFound, ErrCycle) for
	// errors.Is; Msg already describes it.
	Err error
}

// Unwrap returns the sentinel behind e, if any.
func (e *Error) Unwrap() error { return e.Err }

// Error renders e as "file:line:col: msg", omitting unknown parts.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(":")
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is a list of errors, in source order. The parser stops at the
// first syntax error; the resolver reports every error it finds.
type ErrorList []*Error

// Error renders the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Unwrap returns the errors of l, so that errors.As finds the first
// *Error and errors.Is looks at each.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Err returns l as an error, or nil if l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Sentinel errors callers can branch on with errors.Is: the loader's *Error
// values carry them in Err.
var (
	// ErrModuleNotFound means an EXTENDS or INSTANCE named a module that is
	// neither a standard module nor a sibling .tla file.
	ErrModuleNotFound = errors.New("module not found")
	// ErrCycle means modules EXTEND or INSTANCE each other in a cycle.
	ErrCycle = errors.New("module dependency cycle")
)
