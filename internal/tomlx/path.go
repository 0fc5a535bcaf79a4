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
	i := 0
	for i < len(p) {
		switch c := p[i]; {
		case c == '.':
			i++
			if len(segs) == 0 || i == len(p) || p[i] == '.' {
				segs = append(segs, segment{})
			}
		case c == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				segs = append(segs, segment{name: strings.TrimSpace(p[i+1:]), index: true})
				i = len(p)
				break
			}
			segs = append(segs, segment{name: strings.TrimSpace(p[i+1 : i+j]), index: true})
			i += j + 1
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(p) && p[j] != c {
				if c == '"' && p[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(p))
			raw := p[i:end]
			name := ""
			if c == '"' {
				if s, err := strconv.Unquote(raw); err == nil {
					name = s
				} else {
					name = strings.Trim(raw, `"`)
				}
			} else {
				name = strings.Trim(raw, `'`)
			}
			segs = append(segs, segment{name: name})
			i = end
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			segs = append(segs, segment{name: p[i:j]})
			i = j
		}
	}
	return segs
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
