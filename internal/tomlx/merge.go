package tomlx

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Merge returns a deep merge of over onto base: tables merge key by key,
// recursively; any other value in over, including arrays and arrays of
// tables, replaces the base's. Neither input is modified and the result
// shares nothing with them.
func Merge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = deepCopy(v)
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = Merge(bm, om)
			continue
		}
		out[k] = deepCopy(v)
	}
	return out
}

// deepCopy copies the tables and arrays of a TOML value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	case []map[string]any:
		a := make([]map[string]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e).(map[string]any)
		}
		return a
	}
	return v
}

// Set assigns a value given as TOML text (`24`, `"hash"`, `["a", "b"]`,
// `{ scheme = "hash" }`, `1.5`, ...) at the dotted key, replacing what was
// there. Missing intermediate tables are created. After an array (of tables)
// a path segment selects an element, by index ("streams.0.rate" or
// "streams[0].rate") or by the element's "name" value
// ("streams.create_order.rate"). Problems come back as an *Error naming the
// key: bad TOML in the value, an unknown element, or a path through a
// non-table value.
func Set(root map[string]any, key, value string) error {
	st := setter{key: key}
	if root == nil {
		return st.fail("cannot set a key in a nil table")
	}
	if err := st.parse(value); err != nil {
		return err
	}
	// cur is the place the current segment refers into: either a table or an array
	// element.
	var cur any = root
	for i := range st.segs {
		var done bool
		var err error
		switch c := cur.(type) {
		case map[string]any:
			cur, done, err = st.inTable(c, i)
		case []any, []map[string]any:
			cur, done, err = st.inArray(c, i)
		default:
			return st.fail("%s is %s %s, not a table", joinSegments(st.segs[:i]), article(typeName(c)), describe(c))
		}
		if err != nil {
			st.undo() // a failed Set leaves the document as it was
			return err
		}
		if done {
			return nil
		}
	}
	return nil // not reached: the last segment sets the value
}

// undo removes the tables this Set created on its way.
func (st *setter) undo() {
	for i := len(st.created) - 1; i >= 0; i-- {
		delete(st.created[i].in, st.created[i].key)
	}
}

// setter is one Set: the key as given, its segments and the value to set.
type setter struct {
	key  string
	segs []segment
	val  any
	// created are the missing tables made on the way (key in its parent), which a
	// failed Set removes again.
	created []struct {
		in  map[string]any
		key string
	}
}

// fail is a problem with the key, as an *Error naming it.
func (st *setter) fail(format string, args ...any) error {
	return &Error{Key: st.key, Msg: fmt.Sprintf(format, args...)}
}

// parse splits the key into segments, refusing an empty one, and parses the value.
func (st *setter) parse(value string) error {
	st.segs = splitPath(st.key)
	if len(st.segs) == 0 {
		return st.fail("empty key")
	}
	for _, s := range st.segs {
		if s.name == "" && !s.index {
			return st.fail("empty key segment")
		}
	}
	val, err := parseValue(value)
	if err != nil {
		return st.fail("%v", err)
	}
	st.val = val
	return nil
}

// inTable follows segment i in table c: it sets the value there when i is the last
// segment (done), and otherwise returns the value under the segment's key, made a new
// table when missing.
func (st *setter) inTable(c map[string]any, i int) (next any, done bool, err error) {
	s := st.segs[i]
	if s.index {
		return nil, false, st.fail("%s is a table, not an array; it has no element %s", orRoot(joinSegments(st.segs[:i])), s.name)
	}
	if i == len(st.segs)-1 {
		c[s.name] = st.val
		return nil, true, nil
	}
	next, ok := c[s.name]
	if !ok {
		if t := st.segs[i+1]; t.index {
			// An element of an array the document does not have: it cannot be made
			// one element at a time.
			path := joinSegments(st.segs[:i+1])
			return nil, false, st.fail("there is no %s to take element %s of: give the whole array instead (%s = [...])", path, t.name, path)
		}
		m := map[string]any{}
		c[s.name] = m
		st.created = append(st.created, struct {
			in  map[string]any
			key string
		}{c, s.name})
		next = m
	}
	return next, false, nil
}

// inArray follows segment i in array c (by index or by name, see element): it sets the
// element when i is the last segment (done; an array of tables takes only a table), and
// otherwise returns the element.
func (st *setter) inArray(c any, i int) (next any, done bool, err error) {
	where := joinSegments(st.segs[:i])
	elems, _ := asArray(c)
	n, err := element(elems, st.segs[i])
	if err != nil {
		return nil, false, st.fail("%s: %v", where, err)
	}
	if i < len(st.segs)-1 {
		return elems[n], false, nil
	}
	switch a := c.(type) {
	case []any:
		a[n] = st.val
	case []map[string]any:
		m, ok := st.val.(map[string]any)
		if !ok {
			return nil, false, st.fail("%s is an array of tables; its elements can only be set to a table, not %s", where, describe(st.val))
		}
		a[n] = m
	}
	return nil, true, nil
}

func orRoot(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// element selects an array element by index or by its "name" value, either written after
// a dot or in brackets.
func element(elems []any, s segment) (int, error) {
	if n, err := strconv.Atoi(s.name); err == nil && (s.index || isDigits(s.name)) {
		if n < 0 || n >= len(elems) {
			return 0, fmt.Errorf("index %d out of range (the array has %d elements)", n, len(elems))
		}
		return n, nil
	}
	// A name in brackets selects by name too, as variants[NAME] does: streams[create_order]
	// is streams.create_order.
	var names []string
	for i, e := range elems {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		name, ok := m["name"].(string)
		if !ok {
			continue
		}
		if name == s.name {
			return i, nil
		}
		names = append(names, strconv.Quote(name))
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("no element is named %q (elements have no names; use an index from 0 to %d)", s.name, len(elems)-1)
	}
	return 0, fmt.Errorf("no element is named %q (known names: %s)", s.name, strings.Join(names, ", "))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseValue parses one TOML value given as text.
func parseValue(text string) (any, error) {
	if err := guard("", []byte(text)); err != nil {
		var es Errors
		if errors.As(err, &es) {
			return nil, fmt.Errorf("invalid value %s: %s", quoteValue(text), es[0].Msg)
		}
		return nil, err
	}
	var m map[string]any
	_, err := toml.Decode("v = "+text, &m)
	if err == nil {
		v, ok := m["v"]
		if ok && len(m) == 1 {
			return v, nil
		}
		return nil, fmt.Errorf("invalid value %s: not a single TOML value", quoteValue(text))
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	if pe, ok := err.(toml.ParseError); ok {
		msg = pe.Message
	}
	hint := ""
	if _, err := toml.Decode("v = "+strconv.Quote(text), &m); err == nil && !strings.ContainsAny(text, "\"'[]{}\n") {
		hint = fmt.Sprintf(" (strings must be quoted: %s)", strconv.Quote(text))
	}
	return nil, fmt.Errorf("invalid value %s: %s%s", quoteValue(text), msg, hint)
}

func quoteValue(text string) string {
	if len(text) > 60 {
		text = cutAt(text, 60) + "..."
	}
	return "`" + text + "`"
}

// Get returns the value at the dotted key, following the same paths as Set
// (array elements by index or by "name"), and whether it exists.
func Get(root map[string]any, key string) (any, bool) {
	var cur any = root
	for _, s := range splitPath(key) {
		switch c := cur.(type) {
		case map[string]any:
			if s.index {
				return nil, false
			}
			v, ok := c[s.name]
			if !ok {
				return nil, false
			}
			cur = v
		case []any, []map[string]any:
			elems, _ := asArray(c)
			n, err := element(elems, s)
			if err != nil {
				return nil, false
			}
			cur = elems[n]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Render writes a TOML value as TOML text, shortened past about 60 bytes.
func Render(v any) string { return render(v, 60) }

// Describe gives a TOML value's type and value, e.g. `integer 10`, for messages.
func Describe(v any) string { return describe(v) }

// Canonical returns key with every array element named by its "name" written as its
// index ("streams.put.rate" becomes "streams[0].rate"), the form in which validation
// names keys; ok is false when the path cannot be followed in root (an element that is
// not there, a value that is not a table).
func Canonical(root map[string]any, key string) (string, bool) {
	var cur any = root
	var out []segment
	segs := splitPath(key)
	for i, s := range segs {
		switch c := cur.(type) {
		case map[string]any:
			if s.index {
				return "", false
			}
			v, ok := c[s.name]
			if !ok {
				// Keys not there yet (Set will create them) keep their names.
				for _, r := range segs[i:] {
					if r.index {
						return "", false
					}
				}
				return joinSegments(append(out, segs[i:]...)), true
			}
			out = append(out, segment{name: s.name})
			cur = v
		case []any, []map[string]any:
			elems, _ := asArray(c)
			n, err := element(elems, s)
			if err != nil {
				return "", false
			}
			out = append(out, segment{name: strconv.Itoa(n), index: true})
			cur = elems[n]
		default:
			return "", false
		}
	}
	return joinSegments(out), true
}
