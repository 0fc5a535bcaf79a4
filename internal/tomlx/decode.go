package tomlx

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Decoder is implemented by types that decode themselves from a raw TOML
// value (string, int64, float64, bool, time.Time, []any,
// []map[string]any or map[string]any). An error it returns is reported at the
// value's key.
type Decoder interface {
	DecodeTOML(v any) error
}

var (
	decoderType = reflect.TypeFor[Decoder]()
	timeType    = reflect.TypeFor[time.Time]()
)

// Decode decodes the table m into the struct (or other value) pointed to by
// v. Key paths in errors are prefixed with prefix, e.g. "variants[2]" or "".
// Decoding goes on past problems; all of them are returned as Errors, in
// line order, with File from d and Line from d.Line of the full key path. d
// may be nil, giving errors without file and line.
//
// Keys missing from m leave the corresponding fields untouched, so v may hold
// defaults. Keys of m that match no field are errors.
func (d *Doc) Decode(m map[string]any, prefix string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("tomlx: Decode needs a non-nil pointer, got %T", v)
	}
	dec := &decoder{doc: d}
	if m == nil {
		m = map[string]any{}
	}
	dec.value(prefix, m, rv.Elem())
	if len(dec.errs) == 0 {
		return nil
	}
	// Report in file order; problems without a line go last.
	sort.SliceStable(dec.errs, func(i, j int) bool {
		li, lj := dec.errs[i].Line, dec.errs[j].Line
		if li == 0 || lj == 0 {
			return lj == 0 && li != 0
		}
		return li < lj
	})
	return dec.errs
}

type decoder struct {
	doc  *Doc
	errs Errors
}

func (dc *decoder) errorf(path, format string, args ...any) {
	e := &Error{Key: path, Msg: fmt.Sprintf(format, args...)}
	if dc.doc != nil {
		e.File = dc.doc.File
		e.Line = dc.doc.Line(path)
	}
	dc.errs = append(dc.errs, e)
}

func (dc *decoder) mismatch(path, want string, raw any) {
	msg := "expected " + want + ", got " + describe(raw)
	if _, ok := raw.(time.Time); ok && want == "a string" {
		msg += " (quote it to make it a string)"
	}
	dc.errorf(path, "%s", msg)
}

// value decodes raw into the settable value rv: a type that decodes itself or a datetime
// first, then by the kind of rv.
func (dc *decoder) value(path string, raw any, rv reflect.Value) {
	if raw == nil || dc.special(path, raw, rv) {
		return
	}
	switch rv.Kind() {
	case reflect.Pointer:
		dc.pointer(path, raw, rv)
	case reflect.Interface:
		dc.iface(path, raw, rv)
	case reflect.String:
		dc.str(path, raw, rv)
	case reflect.Bool:
		dc.boolean(path, raw, rv)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		dc.integer(path, raw, rv)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		dc.unsigned(path, raw, rv)
	case reflect.Float32, reflect.Float64:
		dc.float(path, raw, rv)
	case reflect.Slice, reflect.Array:
		dc.array(path, raw, rv)
	case reflect.Map:
		dc.table(path, raw, rv)
	case reflect.Struct:
		dc.structure(path, raw, rv)
	default:
		dc.errorf(path, "cannot decode into Go type %s", rv.Type())
	}
}

// special decodes raw into a value that decodes itself (Decoder) or a time.Time, and says
// whether rv was one.
func (dc *decoder) special(path string, raw any, rv reflect.Value) bool {
	t := rv.Type()
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if rv.CanAddr() && reflect.PointerTo(t).Implements(decoderType) {
			dc.custom(path, raw, rv.Addr().Interface().(Decoder))
			return true
		}
		if t.Implements(decoderType) {
			dc.custom(path, raw, rv.Interface().(Decoder))
			return true
		}
	}
	if t != timeType {
		return false
	}
	if tm, ok := raw.(time.Time); ok {
		rv.Set(reflect.ValueOf(tm))
	} else {
		dc.mismatch(path, "a datetime", raw)
	}
	return true
}

// pointer decodes into a new value, starting from the one rv points to if any.
func (dc *decoder) pointer(path string, raw any, rv reflect.Value) {
	p := reflect.New(rv.Type().Elem())
	if !rv.IsNil() { // keep what was there as the starting point
		p.Elem().Set(rv.Elem())
	}
	dc.value(path, raw, p.Elem())
	rv.Set(p)
}

// iface stores raw as it is in an empty interface, or lets a non-nil Decoder decode it.
func (dc *decoder) iface(path string, raw any, rv reflect.Value) {
	t := rv.Type()
	if t.NumMethod() == 0 {
		rv.Set(reflect.ValueOf(raw))
		return
	}
	if t.Implements(decoderType) && !rv.IsNil() {
		dc.custom(path, raw, rv.Interface().(Decoder))
		return
	}
	dc.errorf(path, "cannot decode into Go type %s", t)
}

// str decodes a TOML string into a string.
func (dc *decoder) str(path string, raw any, rv reflect.Value) {
	s, ok := raw.(string)
	if !ok {
		dc.mismatch(path, "a string", raw)
		return
	}
	rv.SetString(s)
}

// boolean decodes a TOML boolean into a bool.
func (dc *decoder) boolean(path string, raw any, rv reflect.Value) {
	b, ok := raw.(bool)
	if !ok {
		dc.mismatch(path, "a boolean", raw)
		return
	}
	rv.SetBool(b)
}

// integer decodes a TOML integer into a signed integer of any size, refusing one that
// does not fit.
func (dc *decoder) integer(path string, raw any, rv reflect.Value) {
	n, ok := raw.(int64)
	if !ok {
		dc.mismatch(path, "an integer", raw)
		return
	}
	if rv.OverflowInt(n) {
		bits := rv.Type().Bits()
		dc.errorf(path, "must be between %d and %d (got %d)",
			int64(-1)<<(bits-1), int64(1)<<(bits-1)-1, n)
		return
	}
	rv.SetInt(n)
}

// unsigned decodes a TOML integer into an unsigned integer of any size, refusing a
// negative one or one that does not fit.
func (dc *decoder) unsigned(path string, raw any, rv reflect.Value) {
	n, ok := raw.(int64)
	if !ok {
		dc.mismatch(path, "an integer", raw)
		return
	}
	if n < 0 {
		dc.errorf(path, "must not be negative (got %d)", n)
		return
	}
	if rv.OverflowUint(uint64(n)) {
		dc.errorf(path, "must be at most %d (got %d)", uint64(1)<<rv.Type().Bits()-1, n)
		return
	}
	rv.SetUint(uint64(n))
}

// float decodes a TOML float or integer into a float, refusing one a float32 cannot hold.
func (dc *decoder) float(path string, raw any, rv reflect.Value) {
	var f float64
	switch x := raw.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		dc.mismatch(path, "a number", raw)
		return
	}
	if rv.OverflowFloat(f) {
		dc.errorf(path, "must be between -3.4e+38 and 3.4e+38 (got %s)", render(raw, 40))
		return
	}
	rv.SetFloat(f)
}

// array decodes a TOML array (or array of tables) into a slice, or into a Go array of
// the same length.
func (dc *decoder) array(path string, raw any, rv reflect.Value) {
	elems, ok := asArray(raw)
	if !ok {
		dc.mismatch(path, "an array", raw)
		return
	}
	t := rv.Type()
	if t.Kind() == reflect.Slice {
		rv.Set(reflect.MakeSlice(t, len(elems), len(elems)))
	} else if len(elems) != t.Len() {
		dc.errorf(path, "expected an array of %d elements, got %d: %s", t.Len(), len(elems), render(raw, 40))
		return
	}
	for i, e := range elems {
		dc.value(indexKey(path, i), e, rv.Index(i))
	}
}

// table decodes a TOML table into a map with string keys, over the entries it holds.
func (dc *decoder) table(path string, raw any, rv reflect.Value) {
	t := rv.Type()
	if t.Key().Kind() != reflect.String {
		dc.errorf(path, "cannot decode into Go type %s", t)
		return
	}
	m, ok := raw.(map[string]any)
	if !ok {
		dc.mismatch(path, "a table", raw)
		return
	}
	if rv.IsNil() {
		rv.Set(reflect.MakeMapWithSize(t, len(m)))
	}
	for _, k := range sortedKeys(m) {
		kv := reflect.ValueOf(k).Convert(t.Key())
		ev := reflect.New(t.Elem()).Elem()
		if old := rv.MapIndex(kv); old.IsValid() {
			ev.Set(old)
		}
		dc.value(joinKey(path, k), m[k], ev)
		rv.SetMapIndex(kv, ev)
	}
}

// structure decodes a TOML table into a struct's tagged fields (fieldsOf); a key that
// names no field is an error, with the closest field's name as a suggestion.
func (dc *decoder) structure(path string, raw any, rv reflect.Value) {
	m, ok := raw.(map[string]any)
	if !ok {
		dc.mismatch(path, "a table", raw)
		return
	}
	fs := fieldsOf(rv.Type())
	for _, k := range sortedKeys(m) {
		idx, ok := fs.byName[k]
		if !ok && dc.extension(path, k, m[k], rv, fs) {
			continue
		}
		if !ok {
			msg := "unknown key"
			if s := suggest(k, fs.names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			dc.errorf(joinKey(path, k), "%s", msg)
			continue
		}
		before := len(dc.errs)
		dc.value(joinKey(path, k), m[k], rv.Field(idx))
		if len(dc.errs) == before+1 {
			dc.pluralHint(dc.errs[before], joinKey(path, k), k, m[k], rv.Type(), fs)
		}
	}
}

// pluralHint adds to e, the one problem of key k's value raw (at path), a suggestion of
// the singular or plural of k (node for nodes) when e is a wrong type and that other key
// takes values of raw's kind: the value is most likely meant for it.
func (dc *decoder) pluralHint(e *Error, path, k string, raw any, t reflect.Type, fs *structFields) {
	if e.Key != path || !strings.HasPrefix(e.Msg, "expected ") {
		return
	}
	for _, n := range []string{k + "s", strings.TrimSuffix(k, "s")} {
		if i, ok := fs.byName[n]; ok && n != k && fits(raw, t.Field(i).Type) {
			e.Msg += fmt.Sprintf("; did you mean %q?", n)
			return
		}
	}
}

func (dc *decoder) custom(path string, raw any, d Decoder) {
	err := d.DecodeTOML(raw)
	var es Errors
	switch {
	case err == nil:
	case errors.As(err, &es):
		// Problems inside the value (a table's keys) carry keys relative to it.
		for _, e := range es {
			key := path
			switch {
			case e.Key == "":
			case strings.HasPrefix(e.Key, "["):
				key += e.Key
			default:
				key = joinPath(path, e.Key)
			}
			dc.errorf(key, "%s", e.Msg)
		}
	default:
		dc.errorf(path, "%s", err.Error())
	}
}

// joinPath appends a relative dotted path (already quoted where needed) to path.
func joinPath(path, rel string) string {
	if path == "" {
		return rel
	}
	return path + "." + rel
}

// asArray returns the elements of a TOML array or array of tables.
func asArray(raw any) ([]any, bool) {
	switch x := raw.(type) {
	case []any:
		return x, true
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// structFields lists the TOML-settable fields of a struct type.
type structFields struct {
	byName map[string]int // TOML key -> field index
	names  []string       // TOML keys, sorted, those declared with Extend included
	ext    int            // the index of the Extensions field, or -1
}

var fieldCache sync.Map // reflect.Type -> *structFields

// fieldsOf returns the fields of t settable from TOML: exported fields with
// a `toml:"name"` tag whose name is neither empty nor "-". The first of
// several fields with the same name wins. Keys declared for t with Extend are
// among its names, and decode into its Extensions field.
func fieldsOf(t reflect.Type) *structFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*structFields)
	}
	fs := &structFields{byName: map[string]int{}, ext: extensionsField(t)}
	for i := 0; i < t.NumField(); i++ {
		name := tagName(t.Field(i))
		if name == "" {
			continue
		}
		if _, dup := fs.byName[name]; dup {
			continue
		}
		fs.byName[name] = i
		fs.names = append(fs.names, name)
	}
	if fs.ext >= 0 {
		fs.names = append(fs.names, extensionNames(t)...)
	}
	sort.Strings(fs.names)
	fieldCache.Store(t, fs)
	return fs
}

// tagName is the TOML key of struct field f: its `toml:"name"` tag's name, or "" for a
// field TOML does not set (unexported, untagged, or tagged "-").
func tagName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, ok := f.Tag.Lookup("toml")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	return name
}

// suggest returns the candidate closest to k by edit distance (ignoring
// case), or "" when none is close enough.
func suggest(k string, candidates []string) string {
	best, bestD, bestTie := "", math.MaxInt, -1
	lk := strings.ToLower(k)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := EditDistance(lk, lc)
		if tie := tieScore(lk, lc); d < bestD || d == bestD && tie > bestTie {
			best, bestD, bestTie = c, d, tie
		}
	}
	limit := max(1, min(len(k), len(best))/3)
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// fits reports whether a raw TOML value is of the kind a field of type t takes (not
// whether its value is valid there); false for a type that decodes itself, whose
// kinds are not known here.
func fits(raw any, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(decoderType) || reflect.PointerTo(t).Implements(decoderType) {
		return false
	}
	switch raw.(type) {
	case int64:
		return t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64
	case float64:
		return t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
	case string:
		return t.Kind() == reflect.String
	case bool:
		return t.Kind() == reflect.Bool
	case []any, []map[string]any:
		return t.Kind() == reflect.Slice || t.Kind() == reflect.Array
	case map[string]any:
		return t.Kind() == reflect.Struct || t.Kind() == reflect.Map
	}
	return false
}

// tieScore ranks candidates at the same edit distance from a mistyped key k: a candidate
// that holds k's letters in order (a letter left out: "nods" for "nodes", not "node")
// first, then the longer common ending (the plural's s), then the longer common start.
func tieScore(k, c string) int {
	score := 0
	if isSubsequence(k, c) {
		score += 1 << 16
	}
	n := 0
	for n < len(k) && n < len(c) && k[len(k)-1-n] == c[len(c)-1-n] {
		n++
	}
	score += n << 8
	n = 0
	for n < len(k) && n < len(c) && k[n] == c[n] {
		n++
	}
	return score + min(n, 255)
}

// isSubsequence reports whether a's bytes appear in b in order.
func isSubsequence(a, b string) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// EditDistance is the edit distance of two short strings (MaxInt past 64 bytes): the
// fewest insertions, deletions, substitutions and swaps of two neighbouring letters
// ("cahce" for "cache" is one slip, not two) that turn a into b.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 { // not worth it; never "close"
		return math.MaxInt
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// typeName describes the TOML type of a raw value in words.
func typeName(raw any) string {
	switch raw.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", raw)
}

// describe gives the TOML type and value of raw, e.g. `string "fast"`.
func describe(raw any) string {
	return typeName(raw) + " " + render(raw, 40)
}

// render writes raw as (possibly shortened) TOML text.
func render(raw any, limit int) string {
	var b strings.Builder
	renderTo(&b, raw, limit)
	s := b.String()
	if _, ok := raw.(string); !ok && len(s) > limit {
		s = cutAt(s, limit) + "..."
	}
	return s
}

// cutAt shortens s to at most n bytes, at a rune boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// renderTo writes raw to b as TOML text, stopping (where it can) once b holds more than
// limit bytes.
func renderTo(b *strings.Builder, raw any, limit int) {
	if b.Len() > limit {
		return
	}
	switch x := raw.(type) {
	case string:
		if len(x) > limit {
			x = cutAt(x, limit) + "..."
		}
		b.WriteString(strconv.Quote(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(formatFloat(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case time.Time:
		b.WriteString(formatTime(x))
	case []any:
		renderArray(b, x, limit)
	case []map[string]any:
		list, _ := asArray(x)
		renderArray(b, list, limit)
	case map[string]any:
		renderTable(b, x, limit)
	default:
		fmt.Fprintf(b, "%v", x)
	}
}

// formatFloat writes a TOML float: nan, inf and -inf by name, and a whole number with ".0"
// so that it reads back as a float.
func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// renderArray writes the elements of an array until b holds more than limit bytes.
func renderArray(b *strings.Builder, list []any, limit int) {
	b.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > limit {
			break
		}
		renderTo(b, e, limit)
	}
	b.WriteByte(']')
}

// renderTable writes a table inline, its keys sorted, until b holds more than limit bytes.
func renderTable(b *strings.Builder, m map[string]any, limit int) {
	if len(m) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{ ")
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > limit {
			break
		}
		b.WriteString(joinKey("", k))
		b.WriteString(" = ")
		renderTo(b, m[k], limit)
	}
	b.WriteString(" }")
}

// formatTime writes a TOML datetime the way it was most likely written.
func formatTime(t time.Time) string {
	switch t.Location().String() {
	case "date-local":
		return t.Format("2006-01-02")
	case "time-local":
		return t.Format("15:04:05.999999999")
	case "datetime-local":
		return t.Format("2006-01-02T15:04:05.999999999")
	}
	return t.Format(time.RFC3339Nano)
}
