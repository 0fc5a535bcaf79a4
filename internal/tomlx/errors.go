package tomlx

import (
	"strconv"
	"strings"
)

// Error is one problem in a scenario file.
type Error struct {
	File string // file name as given to Parse; may be empty
	Line int    // 1-based line, or 0 when unknown
	Key  string // dotted key path, e.g. "streams[1].rate"; may be empty
	Msg  string // the problem, naming the offending value
}

// Error formats the error as "FILE:LINE: KEY: MSG", leaving out ":LINE" when
// Line is 0 and "KEY: " when Key is empty. Without a file name the location
// reads "line LINE: ".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if e.File == "" {
			b.WriteString("line ")
		} else {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is a list of problems. It implements error, formatting one problem
// per line in order, and supports errors.Is/As through Unwrap.
type Errors []*Error

// Error returns the problems one per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems as a slice of errors.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
