package spec

import (
	"reflect"

	"github.com/shardsim/shardsim/internal/tomlx"
)

// A mechanism's scenario keys, their checks and the settings they turn into live in one
// file of this package (latch.go, pool.go), beside nothing else: the file declares its keys
// in the tables that hold them (tableKey, streamKey, ...), and registers a resolver that
// reads them, checks them and appends the mechanism's sim.Setting to Resolved.Mechanisms.
// docs/architecture.md says where else a new mechanism goes.

// extKey is a key a mechanism declares in a table of the scenario (T: its value's type,
// one of this package's types or a pointer to a number, as the File's own fields).
type extKey[T any] struct{ name string }

// KeyDoc is a mechanism's key as docs/scenario.md lists it: the table that holds it, its
// name, its default and what it means (Markdown). The docs' table of these keys is
// generated from the declarations (mechanism_test.go), so that a key is written down once.
type KeyDoc struct {
	Table, Name, Default, Meaning string
}

// MechanismKeys are the keys the mechanisms declared, in the order of their declarations.
var MechanismKeys []KeyDoc

// declare registers the key name, of type T, in the tables decoded into struct type table
// (tableName in the docs), with its default and meaning for docs/scenario.md.
func declare[T any](table reflect.Type, tableName, name, def, meaning string) extKey[T] {
	tomlx.Extend(table, name, reflect.TypeFor[T]())
	MechanismKeys = append(MechanismKeys, KeyDoc{Table: tableName, Name: name, Default: def, Meaning: meaning})
	return extKey[T]{name}
}

// tableKey declares a key of [table], streamKey one of each [[streams]] entry. (File,
// Cluster and Keyspace have an Ext field too: a declaring function for them is one line.)
func tableKey[T any](name, def, meaning string) extKey[T] {
	return declare[T](reflect.TypeFor[Table](), "[table]", name, def, meaning)
}

func streamKey[T any](name, def, meaning string) extKey[T] {
	return declare[T](reflect.TypeFor[Stream](), "[[streams]]", name, def, meaning)
}

// in returns the key's value in x, and whether the table gave it.
func (k extKey[T]) in(x tomlx.Extensions) (T, bool) {
	if p, ok := x.Value(k.name).(*T); ok {
		return *p, true
	}
	var zero T
	return zero, false
}

// mechanismResolver reads one mechanism's keys of f, reports their problems to c and, when
// the mechanism is on, appends its settings to s.Mechanisms. It runs after every section
// of the scenario has been resolved, so it may read s's streams, fields and shards.
type mechanismResolver func(c *checker, f *File, s *Resolved)

var mechanismResolvers []mechanismResolver

// registerMechanism adds a mechanism's resolver; its file calls it from init. Resolvers
// run in the order of their files' names, which fixes the order of the settings and of
// the problems they report.
func registerMechanism(r mechanismResolver) {
	mechanismResolvers = append(mechanismResolvers, r)
}

// resolveMechanisms runs every registered mechanism's resolver.
func resolveMechanisms(c *checker, f *File, s *Resolved) {
	for _, r := range mechanismResolvers {
		r(c, f, s)
	}
}
