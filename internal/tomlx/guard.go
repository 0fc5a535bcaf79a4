package tomlx

import (
	"fmt"
)

// Bounds on the shape of a document, checked before the parser sees it: BurntSushi/toml
// takes time and memory that grow faster than linearly with nesting (about 40 KB of nested
// inline tables or 60 KB of one dotted key exhaust memory) and recurses once per level of
// nested arrays (6 MB overflow the stack). Scenario files need a few levels and short keys.
const (
	MaxFileBytes = 16 << 20 // a million categorical values fit in about 8 MB
	MaxDepth     = 32       // nested arrays and inline tables
	MaxKeyParts  = 32       // parts of one dotted key
)

// guard checks src against the bounds, naming the line where one is passed. It reads
// strings and comments as TOML does, so brackets and dots inside them do not count.
func guard(file string, src []byte) error {
	fail := func(line int, format string, args ...any) error {
		return Errors{&Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(src) > MaxFileBytes {
		return fail(0, "the file has %d bytes; a scenario may have at most %d (16 MiB)", len(src), MaxFileBytes)
	}
	line, depth, dots := 1, 0, 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			line++
			dots = 0
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i-- // the newline is counted above
		case '"', '\'':
			end, lines := skipString(src, i)
			line += lines
			i = end
		case '[', '{':
			if depth++; depth > MaxDepth {
				return fail(line, "arrays and tables nest %d deep here; at most %d levels are allowed", depth, MaxDepth)
			}
			dots = 0
		case ']', '}':
			depth = max(depth-1, 0)
			dots = 0
		case '=', ',':
			dots = 0
		case '.':
			if dots++; dots >= MaxKeyParts {
				return fail(line, "a dotted key of more than %d parts; at most %d are allowed", MaxKeyParts, MaxKeyParts)
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string that opens at src[i] (basic
// or literal, one-line or multi-line) and the newlines inside it. An unterminated string
// runs to the end; the parser reports it. guard reads the file's bytes with it, and the
// line scanner its text.
func skipString[T string | []byte](src T, i int) (end, lines int) {
	q := src[i]
	if i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		return skipMultiLine(src, i+3, q)
	}
	return skipOneLine(src, i+1, q)
}

// skipOneLine is skipString for a one-line string of quote q whose text starts at
// src[j]: it ends at its closing quote or, unterminated, before the line's end.
func skipOneLine[T string | []byte](src T, j int, q byte) (end, lines int) {
	for ; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\' && q == '"':
			j = skipEscape(src, j, &lines)
		case c == '\n':
			return j - 1, lines
		case c == q:
			return j, lines
		}
	}
	return len(src) - 1, lines
}

// skipMultiLine is skipString for a multi-line string of quote q whose text starts at
// src[j]: it ends with three quotes, and up to two more quotes belong to the string
// ("""a"""" is a").
func skipMultiLine[T string | []byte](src T, j int, q byte) (end, lines int) {
	for ; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\' && q == '"':
			j = skipEscape(src, j, &lines)
		case c == '\n':
			lines++
		case c == q && j+2 < len(src) && src[j+1] == q && src[j+2] == q:
			k := j + 3
			for k < len(src) && k < j+5 && src[k] == q {
				k++
			}
			return k - 1, lines
		}
	}
	return len(src) - 1, lines
}

// skipEscape returns the index of the byte that the backslash at src[j] escapes in a basic
// string, counting it in lines when it is a newline (a line-ending backslash).
func skipEscape[T string | []byte](src T, j int, lines *int) int {
	if j+1 < len(src) && src[j+1] == '\n' {
		*lines++
	}
	return j + 1
}
