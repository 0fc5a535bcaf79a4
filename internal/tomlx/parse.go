package tomlx

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Doc is a parsed scenario file.
type Doc struct {
	File string         // file name used in errors
	Root map[string]any // the parsed document, as produced by BurntSushi/toml

	lines map[string]int // dotted key path -> 1-based line of its definition
	// elems holds the lines of arrays' scalar elements, which are not in lines: a list of
	// a million numbers would otherwise cost a million map entries.
	elems map[string]*elemLines
}

// elemLines are the lines of an array's scalar elements: marks holds the first element of
// each line the array spans (in index order), n counts the elements.
type elemLines struct {
	marks []lineMark
	n     int
}

type lineMark struct{ index, line int }

// line returns the line of element i, or 0 when the array has no scalar element i.
func (e *elemLines) line(i int) int {
	if i < 0 || i >= e.n || len(e.marks) == 0 || i < e.marks[0].index {
		return 0
	}
	j := sort.Search(len(e.marks), func(k int) bool { return e.marks[k].index > i })
	return e.marks[j-1].line
}

// Parse parses src, naming it file in errors. A syntax error comes back as
// Errors holding one *Error with File, Line and the parser's message.
func Parse(file string, src []byte) (*Doc, error) {
	if err := guard(file, src); err != nil {
		return nil, err
	}
	var root map[string]any
	if _, err := toml.Decode(string(src), &root); err != nil {
		e := &Error{File: file}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line = errorLine(src, pe.Position)
			e.Msg = pe.Message
		} else {
			e.Msg = err.Error()
		}
		e.Msg = strings.TrimPrefix(e.Msg, "toml: ")
		return nil, Errors{e}
	}
	if root == nil {
		root = map[string]any{}
	}
	lines, elems := indexLines(string(src))
	return &Doc{File: file, Root: root, lines: lines, elems: elems}, nil
}

// errorLine returns the line of a parse error. BurntSushi/toml counts an
// unexpected newline as part of the next line; the error's byte offset puts
// it at the end of the line where the problem is, so that wins when the two
// disagree by one.
func errorLine(src []byte, pos toml.Position) int {
	if pos.Start < 0 || pos.Start > len(src) {
		return pos.Line
	}
	if l := 1 + bytes.Count(src[:pos.Start], []byte("\n")); l == pos.Line-1 {
		return l
	}
	return pos.Line
}

// Line returns the 1-based line where the dotted key path is defined, or the
// line of its nearest defined ancestor, or 0. Paths have the form
// "cluster.nodes", "streams[1].rate" or "variants[0].keyspace.scheme". The
// result is best effort (see indexLines). Line is safe on a nil *Doc.
func (d *Doc) Line(path string) int {
	if d == nil || len(d.lines) == 0 {
		return 0
	}
	if l, ok := d.lines[path]; ok {
		return l
	}
	segs := splitPath(path)
	if l := d.elemLine(segs); l > 0 {
		return l
	}
	for n := len(segs); n > 0; n-- {
		if l, ok := d.lines[joinSegments(segs[:n])]; ok {
			return l
		}
	}
	return 0
}

// elemLine returns the line of the scalar array element segs names, or 0.
func (d *Doc) elemLine(segs []segment) int {
	n := len(segs)
	if n < 2 || !segs[n-1].index {
		return 0
	}
	e := d.elems[joinSegments(segs[:n-1])]
	i, err := strconv.Atoi(segs[n-1].name)
	if e == nil || err != nil {
		return 0
	}
	return e.line(i)
}

// known reports whether path is a key or an element the index has a line for.
func (d *Doc) known(path string) bool {
	if _, ok := d.lines[path]; ok {
		return true
	}
	return d.elemLine(splitPath(path)) > 0
}

// maxDepth bounds the nesting of arrays and inline tables the line scanner
// follows; deeper documents are indexed only up to where it was exceeded.
const maxDepth = 200

// lineScanner records on which line each key path of a TOML document is
// defined. It is a small tolerant recursive-descent scanner that understands
// table headers, arrays of tables, dotted and quoted keys, strings of all four
// kinds, arrays and inline tables (also spanning lines), and comments. It is
// only run on documents BurntSushi/toml accepted, but it never panics and
// always terminates on any input.
type lineScanner struct {
	src   string
	i     int
	line  int
	depth int
	stop  bool

	lines  map[string]int
	elems  map[string]*elemLines
	arrays map[string]int // resolved path of an array of tables -> elements so far
}

func indexLines(src string) (map[string]int, map[string]*elemLines) {
	src = stripBOM(src)
	s := &lineScanner{src: src, line: 1, lines: map[string]int{}, elems: map[string]*elemLines{}, arrays: map[string]int{}}
	s.document()
	return s.lines, s.elems
}

// stripBOM drops a byte-order mark at the start of src, as the TOML decoder does (UTF-8,
// and the two UTF-16 ones it tolerates), so that the scanner sees the keys the decoder saw
// (found by FuzzParseDecode: "\xfe\xff0=0" has the key "0").
func stripBOM(src string) string {
	switch {
	case strings.HasPrefix(src, "\xff\xfe"), strings.HasPrefix(src, "\xfe\xff"):
		return src[2:]
	case strings.HasPrefix(src, "\xef\xbb\xbf"):
		return src[3:]
	}
	return src
}

func (s *lineScanner) eof() bool { return s.stop || s.i >= len(s.src) }

func (s *lineScanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.i]
}

func (s *lineScanner) peekAt(off int) byte {
	if s.stop || s.i+off >= len(s.src) {
		return 0
	}
	return s.src[s.i+off]
}

// next consumes one byte, counting lines.
func (s *lineScanner) next() {
	if s.eof() {
		return
	}
	if s.src[s.i] == '\n' {
		s.line++
	}
	s.i++
}

// record notes the line of path unless it is known already.
func (s *lineScanner) record(path string, line int) {
	if _, ok := s.lines[path]; !ok {
		s.lines[path] = line
	}
}

// element notes the line of scalar element n of the array at path.
func (s *lineScanner) element(path string, n int) {
	e := s.elems[path]
	if e == nil {
		e = &elemLines{}
		s.elems[path] = e
	}
	if n < e.n {
		return // already known: an earlier definition wins, as in record
	}
	if k := len(e.marks); k == 0 || e.marks[k-1].line != s.line {
		e.marks = append(e.marks, lineMark{index: n, line: s.line})
	}
	e.n = n + 1
}

func (s *lineScanner) skipSpace() {
	for c := s.peek(); c == ' ' || c == '\t' || c == '\r'; c = s.peek() {
		s.next()
	}
}

func (s *lineScanner) skipComment() {
	for !s.eof() && s.peek() != '\n' {
		s.next()
	}
}

// skipBlank skips whitespace, newlines and comments.
func (s *lineScanner) skipBlank() {
	for !s.eof() {
		switch s.peek() {
		case ' ', '\t', '\r', '\n':
			s.next()
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

func (s *lineScanner) document() {
	table := "" // resolved path of the current table
	for !s.eof() {
		s.skipBlank()
		if s.eof() {
			return
		}
		line := s.line
		switch s.peek() {
		case '[':
			array := s.peekAt(1) == '['
			s.next()
			if array {
				s.next()
			}
			keys := s.key()
			table = s.header(keys, array, line)
			// Skip "]" or "]]" and whatever else is left on the line.
			s.skipComment()
		default:
			start := s.i
			s.keyValue(table)
			if s.i == start { // not a key: never loop without progress
				s.next()
			}
			s.skipComment()
		}
	}
}

// header resolves a table header's keys against the arrays of tables seen so
// far, records its lines and returns the table's resolved path.
func (s *lineScanner) header(keys []string, array bool, line int) string {
	p := ""
	for j, k := range keys {
		p = joinKey(p, k)
		last := j == len(keys)-1
		if last && array {
			s.record(p, line)
			n := s.arrays[p]
			s.arrays[p] = n + 1
			p = indexKey(p, n)
			s.lines[p] = line
			return p
		}
		if n := s.arrays[p]; n > 0 {
			p = indexKey(p, n-1)
		}
		if last {
			s.lines[p] = line // an explicit header wins over implicit mentions
		} else {
			s.record(p, line)
		}
	}
	return p
}

// key scans a possibly dotted key and returns its parts.
func (s *lineScanner) key() []string {
	var keys []string
	for !s.eof() {
		s.skipSpace()
		part, ok := s.keyPart()
		if !ok {
			return keys
		}
		keys = append(keys, part)
		s.skipSpace()
		if s.peek() != '.' {
			return keys
		}
		s.next()
	}
	return keys
}

// bareKeyEnd marks the bytes that end a bare key: blanks, the dot of a dotted key, '=',
// and the brackets, braces, commas, comments and quotes that may follow it.
var bareKeyEnd = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '.': true, '=': true,
	']': true, '[': true, '}': true, '{': true, ',': true, '#': true, '"': true, '\'': true}

// keyPart scans one part of a key, quoted or bare; ok is false where none begins.
func (s *lineScanner) keyPart() (part string, ok bool) {
	if c := s.peek(); c == '"' || c == '\'' {
		return s.quotedKey(c), true
	}
	start := s.i
	for !s.eof() && !bareKeyEnd[s.peek()] {
		s.next()
	}
	return s.src[start:s.i], s.i > start
}

func (s *lineScanner) quotedKey(q byte) string {
	start := s.i
	s.next()
	for !s.eof() && s.peek() != q && s.peek() != '\n' {
		if q == '"' && s.peek() == '\\' {
			s.next()
		}
		s.next()
	}
	if s.peek() == q {
		s.next()
	}
	raw := s.src[start:s.i]
	if q == '\'' {
		return strings.Trim(raw, "'")
	}
	return unescape(strings.TrimSuffix(raw[1:], `"`))
}

// unescape decodes the escapes of a TOML basic string (TOML 1.1, so with \e
// and \xHH). A malformed escape is kept as written.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(c)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			if i+n < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// keyValue scans "key = value" inside the table at path base.
func (s *lineScanner) keyValue(base string) {
	line := s.line
	keys := s.key()
	if len(keys) == 0 {
		return
	}
	p := base
	for j, k := range keys {
		p = joinKey(p, k)
		if j == len(keys)-1 {
			s.lines[p] = line
		} else {
			s.record(p, line)
		}
	}
	s.skipSpace()
	if s.peek() != '=' {
		return
	}
	s.next()
	s.value(p)
}

// value scans one value defined at path.
func (s *lineScanner) value(path string) {
	s.skipSpace()
	switch c := s.peek(); c {
	case '"', '\'':
		s.str()
	case '[':
		s.nested(func() { s.array(path) })
	case '{':
		s.nested(func() { s.inlineTable(path) })
	default:
		for !s.eof() {
			switch s.peek() {
			case ',', ']', '}', '\n', '#':
				return
			}
			s.next()
		}
	}
}

func (s *lineScanner) nested(f func()) {
	s.depth++
	if s.depth > maxDepth {
		s.stop = true
		return
	}
	f()
	s.depth--
}

// str scans a basic or literal string, single- or multi-line (skipString, as guard reads
// them).
func (s *lineScanner) str() {
	end, lines := skipString(s.src, s.i)
	s.i = end + 1
	s.line += lines
}

func (s *lineScanner) array(path string) {
	s.next() // [
	for n := 0; !s.eof(); {
		s.skipBlank()
		switch s.peek() {
		case ']':
			s.next()
			return
		case ',':
			s.next()
			n++
			continue
		}
		start := s.i
		if c := s.peek(); c == '[' || c == '{' {
			p := indexKey(path, n)
			s.record(p, s.line)
			s.value(p)
		} else {
			s.element(path, n)
			s.value(path)
		}
		if s.i == start {
			s.next()
		}
	}
}

func (s *lineScanner) inlineTable(path string) {
	s.next() // {
	for !s.eof() {
		s.skipBlank()
		switch s.peek() {
		case '}':
			s.next()
			return
		case ',':
			s.next()
			continue
		}
		start := s.i
		s.keyValue(path)
		if s.i == start {
			s.next()
		}
	}
}
