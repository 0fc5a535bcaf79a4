package tomlx

import (
	"strconv"
	"strings"
)

// isBareKey reports whether k can be written as a bare TOML key.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// joinKey appends key k to the dotted path prefix, quoting k when it is not
// a bare key so that the path stays unambiguous.
func joinKey(prefix, k string) string {
	if !isBareKey(k) {
		k = strconv.Quote(k)
	}
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// indexKey appends an array index to path.
func indexKey(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// segment is one element of a parsed dotted path.
type segment struct {
	name  string // the key (unquoted), or the index text for index segments
	index bool   // written as [i]
}

// splitPath splits a dotted path such as `streams[1].rate` or
// `table."a.b".s` into segments. It accepts any input: quotes that are not
// closed run to the end, and empty segments are kept as empty names.
func splitPath(p string) []segment {
	var segs []segment
	for i := 0; i < len(p); {
		var seg segment
		switch c := p[i]; {
		case c == '.':
			i++
			if len(segs) == 0 || i == len(p) || p[i] == '.' {
				segs = append(segs, segment{})
			}
			continue
		case c == '[':
			seg, i = indexSegment(p, i)
		case c == '"' || c == '\'':
			seg, i = quotedSegment(p, i)
		default:
			seg, i = bareSegment(p, i)
		}
		segs = append(segs, seg)
	}
	return segs
}

// indexSegment reads the index segment "[i]" that opens at p[i] (to the end when it is not
// closed) and returns it and where the path goes on.
func indexSegment(p string, i int) (segment, int) {
	j := strings.IndexByte(p[i:], ']')
	if j < 0 {
		return segment{name: strings.TrimSpace(p[i+1:]), index: true}, len(p)
	}
	return segment{name: strings.TrimSpace(p[i+1 : i+j]), index: true}, i + j + 1
}

// quotedSegment reads the quoted key that opens at p[i] (to the end when it is not
// closed), unquoting a basic string's escapes where they are valid.
func quotedSegment(p string, i int) (segment, int) {
	q := p[i]
	j := i + 1
	for j < len(p) && p[j] != q {
		if q == '"' && p[j] == '\\' {
			j++
		}
		j++
	}
	end := min(j+1, len(p))
	raw := p[i:end]
	if q == '\'' {
		return segment{name: strings.Trim(raw, "'")}, end
	}
	if s, err := strconv.Unquote(raw); err == nil {
		return segment{name: s}, end
	}
	return segment{name: strings.Trim(raw, `"`)}, end
}

// bareSegment reads the bare key that starts at p[i], up to a dot or an index.
func bareSegment(p string, i int) (segment, int) {
	j := i
	for j < len(p) && p[j] != '.' && p[j] != '[' {
		j++
	}
	return segment{name: p[i:j]}, j
}

// joinSegments is the inverse of splitPath, in the canonical form produced
// by joinKey and indexKey.
func joinSegments(segs []segment) string {
	var b strings.Builder
	for i, s := range segs {
		if s.index {
			b.WriteString("[" + s.name + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		if isBareKey(s.name) {
			b.WriteString(s.name)
		} else {
			b.WriteString(strconv.Quote(s.name))
		}
	}
	return b.String()
}
