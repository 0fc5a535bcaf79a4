package tomlx

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"sync"
)

// Extensions holds the values of a table's keys that are declared apart from the struct
// that decodes the table (see Extend). A struct with an exported field of this type accepts,
// beside its tagged fields, every key registered for the struct's type, and decodes each
// into a value of the type registered with it. The zero value holds no key.
//
// The keys of one part of a program (a mechanism, say) can then be declared beside the
// code that reads them, instead of in the struct every part shares.
type Extensions struct {
	vals map[string]reflect.Value // by key: a pointer to the decoded value
}

// Value returns a pointer to key's decoded value, or nil when the table did not give the key.
func (x Extensions) Value(key string) any {
	if v, ok := x.vals[key]; ok {
		return v.Interface()
	}
	return nil
}

// set stores p, a pointer to key's decoded value. The map is copied first, so a copy of
// the struct decoded earlier keeps its own values.
func (x *Extensions) set(key string, p reflect.Value) {
	m := maps.Clone(x.vals)
	if m == nil {
		m = map[string]reflect.Value{}
	}
	m[key] = p
	x.vals = m
}

var (
	extensionsType = reflect.TypeFor[Extensions]()
	extMu          sync.Mutex
	extKeys        = map[reflect.Type]map[string]reflect.Type{} // table struct -> key -> value type
)

// Extend declares key in every table decoded into a struct of type table, which must have
// an exported field of type Extensions; its value decodes as a value of type value (a
// Decoder, a pointer, a struct: any type Decode handles). Call it from a package's init,
// before anything is decoded. A key declared twice, or one the struct already has, panics:
// it is a programming error.
func Extend(table reflect.Type, key string, value reflect.Type) {
	if table.Kind() != reflect.Struct || extensionsField(table) < 0 {
		panic(fmt.Sprintf("tomlx: Extend: %s has no Extensions field", table))
	}
	extMu.Lock()
	defer extMu.Unlock()
	keys := extKeys[table]
	if keys == nil {
		keys = map[string]reflect.Type{}
		extKeys[table] = keys
	}
	if _, dup := keys[key]; dup {
		panic(fmt.Sprintf("tomlx: Extend: key %q of %s declared twice", key, table))
	}
	for i := 0; i < table.NumField(); i++ {
		if name := tagName(table.Field(i)); name == key {
			panic(fmt.Sprintf("tomlx: Extend: %s already has key %q", table, key))
		}
	}
	keys[key] = value
	fieldCache.Delete(table) // its names now include key
}

// ExtensionsOf returns the keys declared for table with Extend, and the type of each.
func ExtensionsOf(table reflect.Type) map[string]reflect.Type {
	extMu.Lock()
	defer extMu.Unlock()
	return maps.Clone(extKeys[table])
}

// extensionKey returns the type declared for key in table, if any.
func extensionKey(table reflect.Type, key string) (reflect.Type, bool) {
	extMu.Lock()
	defer extMu.Unlock()
	t, ok := extKeys[table][key]
	return t, ok
}

// extensionNames lists the keys declared for table, sorted.
func extensionNames(table reflect.Type) []string {
	extMu.Lock()
	defer extMu.Unlock()
	var names []string
	for k := range extKeys[table] {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// extensionsField is the index of t's exported Extensions field, or -1.
func extensionsField(t reflect.Type) int {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && f.Type == extensionsType {
			return i
		}
	}
	return -1
}

// extension decodes raw, the value of key k, into rv's Extensions field when k is declared
// for rv's type, and says whether it was.
func (dc *decoder) extension(path, k string, raw any, rv reflect.Value, fs *structFields) bool {
	if fs.ext < 0 {
		return false
	}
	vt, ok := extensionKey(rv.Type(), k)
	if !ok {
		return false
	}
	x := rv.Field(fs.ext).Addr().Interface().(*Extensions)
	p := reflect.New(vt)
	if old, ok := x.vals[k]; ok { // a later table over an earlier one starts from its value
		p.Elem().Set(old.Elem())
	}
	dc.value(joinKey(path, k), raw, p.Elem())
	x.set(k, p)
	return true
}

// Set gives key the value v, which must be of the type declared for key, as if a table
// had given it (a table built in code, a test's).
func (x *Extensions) Set(key string, v any) {
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	x.set(key, p)
}
