// Package escape makes untrusted text (a scenario's names and values, an access log's keys)
// safe for the one kind of output it is written into: a terminal, Markdown prose, a
// Markdown table cell, a CSV cell. Each writer of the project passes the text it did not
// make itself through the function for its kind of output, so that a key typed by a user
// never moves a cursor, runs a script in a rendered report or becomes a live formula in a
// spreadsheet (docs/architecture.md, "Untrusted text").
package escape

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// JSON returns the JSON text b with every character that Terminal escapes written as a
// JSON escape (\u202e): encoding/json escapes the C0 controls but leaves DEL, the C1
// controls and the bidirectional overrides raw. Outside its strings JSON text is ASCII
// without controls, so only string contents change, and they decode to the same text.
func JSON(b []byte) []byte {
	if clean(string(b), false) {
		return b
	}
	var out bytes.Buffer
	s := string(b)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if invisible(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteString(s[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}

// invisible reports whether r is a character that must not reach a terminal as itself:
// the C0 controls but tab and newline (ESC among them), DEL, the C1 controls, the Unicode
// line and paragraph separators, and the bidirectional controls that reorder what is shown
// (the "Trojan Source" overrides and isolates, and the marks).
func invisible(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// visible writes r as a printable escape: \u001b, \u202e.
func visible(b *strings.Builder, r rune) {
	fmt.Fprintf(b, `\u%04x`, r)
}

// Terminal returns s with every control character but tab and newline, every C1 control,
// every bidirectional override or isolate and every byte that is not UTF-8 shown as an
// escape (\u001b, \x9b) instead of sent to the terminal. Printable text, tab and newline
// are unchanged, so text that needs no escaping comes back as it was.
func Terminal(s string) string {
	if clean(s, false) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case invisible(r):
			visible(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is Terminal for text that must stay on one line (a name, a key, a value): tab and
// newline are escaped as well, as \t and \n.
func Line(s string) string {
	if clean(s, true) {
		return s
	}
	t := Terminal(s)
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(t)
}

// clean reports whether s is valid UTF-8 without any character Terminal (or, with
// oneLine, Line) escapes.
func clean(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && (oneLine || c != '\t' && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || invisible(r) {
			return false
		}
		i += n
	}
	return true
}

// markdownSpecial are the ASCII characters that Markdown (CommonMark with the GitHub
// extensions) could read as markup inside a line, and their escapes. '<', '>' and '&'
// become entities, which every Markdown renderer decodes to text and none to a tag; the
// others are escaped with a backslash.
var markdownSpecial = map[byte]string{
	'\\': `\\`, '`': "\\`", '*': `\*`, '[': `\[`, ']': `\]`,
	'<': "&lt;", '>': "&gt;", '&': "&amp;",
}

// MarkdownText returns s as Markdown that renders as s's text, on one line, and as nothing
// else: no tag, no link, no image, no emphasis, no code span, no heading or list where it
// starts. Control characters are escaped first as by Line. It is for text inside a
// paragraph, a heading or a list item; a table cell needs MarkdownCell.
func MarkdownText(s string) string { return markdown(s, false) }

// MarkdownCell is MarkdownText for a cell of a Markdown table: a '|' is escaped too, so that
// the text stays in its cell.
func MarkdownCell(s string) string { return markdown(s, true) }

// orderedStart is a line start that Markdown reads as an ordered list item: "1." or "1)".
var orderedStart = regexp.MustCompile(`^[0-9]{1,9}[.)]( |$)`)

// markdown escapes s for Markdown text, or for a table cell (cell).
func markdown(s string, cell bool) string {
	s = Line(s)
	m := mdText{s: s, cell: cell, tildes: strings.Count(s, "~") > 1}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if e := m.escape(i); e != "" {
			b.WriteString(e)
		} else {
			b.WriteByte(s[i])
		}
	}
	out := b.String()
	if m := orderedStart.FindString(out); m != "" && !cell {
		m = strings.TrimSuffix(m, " ")
		out = m[:len(m)-1] + `\` + out[len(m)-1:]
	}
	return out
}

// mdText is a line of text being escaped for Markdown: in a table cell or not, and
// whether it holds tildes enough for a strikethrough.
type mdText struct {
	s            string
	cell, tildes bool
}

// escape returns the escape of the byte at i, or "" when it stands for itself.
func (m *mdText) escape(i int) string {
	c := m.s[i]
	if e, ok := markdownSpecial[c]; ok {
		return e
	}
	switch {
	case c == '~' && m.tildes:
		// Strikethrough takes two tildes; a lone one (~5%) stays as it is.
		return `\~`
	case c == '|' && m.cell:
		return `\|`
	case c == '_' && !m.inWord(i):
		// An underscore inside a word is never emphasis; one at a word's edge may be.
		return `\_`
	case i == 0 && !m.cell && lineStartMarkup(m.s):
		// A heading, a list item, a rule, or a line that would turn the one above
		// into a heading: only where a line starts, which a cell never is.
		return `\` + m.s[:1]
	}
	return ""
}

// inWord says that the byte at i has a letter or digit on both sides.
func (m *mdText) inWord(i int) bool {
	return i > 0 && alnum(m.s[i-1]) && i+1 < len(m.s) && alnum(m.s[i+1])
}

// lineStartMarkup says that s starts as a heading ('#'), a list item or rule ('-' or
// '+' alone, before a space or doubled), or a setext underline ('=').
func lineStartMarkup(s string) bool {
	c := s[0]
	return c == '#' || c == '=' || (c == '-' || c == '+') && (len(s) == 1 || s[1] == ' ' || s[1] == c)
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// number is a cell that a spreadsheet reads as a plain number, never as a formula: -3.5,
// +2, 1e-9. Such a cell is left as it is.
var number = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// CSVCell returns s ready for a CSV cell, as OWASP's advice on CSV injection has it: a cell
// that begins with '=', '+', '-', '@', a tab or a carriage return, which a spreadsheet
// would read as a formula, gets a leading single quote, unless the whole cell is a plain
// number (a negative figure stays a number). Control characters are escaped as by Line, so
// a cell is one line of printable text. The quoting of commas and double quotes is
// encoding/csv's, which CSVWriter uses.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if number.MatchString(s) { // only here: a number is clean, and Line keeps it as it is
			return s
		}
		return "'" + Line(s)
	}
	return Line(s)
}

// CSVWriter is an encoding/csv Writer that passes every cell through CSVCell.
type CSVWriter struct {
	w   *csv.Writer
	buf []string
}

// NewCSVWriter returns a CSVWriter writing to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{w: csv.NewWriter(w)} }

// Write writes one record, each cell escaped.
func (c *CSVWriter) Write(record []string) error {
	c.buf = c.buf[:0]
	for _, s := range record {
		c.buf = append(c.buf, CSVCell(s))
	}
	return c.w.Write(c.buf)
}

// Flush writes any buffered data to the underlying io.Writer.
func (c *CSVWriter) Flush() { c.w.Flush() }

// Error reports any error from a previous Write or Flush.
func (c *CSVWriter) Error() error { return c.w.Error() }

// TerminalWriter passes everything written to it through Terminal on its way to a
// terminal (or whatever reads a command's output). A character split between two writes is
// held until the next; Close writes what is held.
type TerminalWriter struct {
	w       io.Writer
	pending []byte
}

// NewTerminalWriter returns a TerminalWriter writing to w.
func NewTerminalWriter(w io.Writer) *TerminalWriter { return &TerminalWriter{w: w} }

// Write escapes p and writes it; it reports len(p) written when the escaped text was.
func (t *TerminalWriter) Write(p []byte) (int, error) {
	data := p
	if len(t.pending) > 0 {
		data = append(t.pending, p...)
		t.pending = nil
	}
	// Hold an incomplete UTF-8 sequence at the end for the next write.
	cut := len(data)
	for k := 1; k <= 3 && k <= len(data); k++ {
		c := data[len(data)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-k:]) {
				cut = len(data) - k
			}
			break
		}
	}
	t.pending = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(t.w, Terminal(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Underlying is the writer t writes to, for output that draws on the terminal itself (a
// progress bar) and holds no untrusted text.
func (t *TerminalWriter) Underlying() io.Writer { return t.w }

// Close writes a held incomplete character, escaped.
func (t *TerminalWriter) Close() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := Terminal(string(t.pending))
	t.pending = nil
	_, err := io.WriteString(t.w, s)
	return err
}
