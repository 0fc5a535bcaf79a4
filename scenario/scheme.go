package scenario

import (
	"reflect"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
)

// A shard scheme's keys, their checks and its options live in its file in keyspace
// (keyspace/hash.go, keyspace/directory.go, ...), which registers them: scenario declares
// the keys to its decoder here, and resolves them through the registry
// (keyspace.SchemeKind's methods), naming no scheme.

// The schemes' keys decode into [keyspace]'s Ext (and those an index takes into each
// [[indexes]] entry's too, mechanisms/index), with the same file-line-key errors as the
// table's own keys.
func init() {
	for _, k := range keyspace.SchemeKeys() {
		tomlx.Extend(reflect.TypeFor[Keyspace](), k.Name, k.Type)
	}
}

// splitTable is [keyspace.split], the table mechanisms/split declares: a scheme's own
// keys are checked against it (SchemeTable.Split) before any mechanism resolves.
const splitTable = "split"

// schemeInput is the checker as a scheme's resolver sees it, over one table's keys.
type schemeInput struct {
	c *checker
	x tomlx.Extensions
}

func (in schemeInput) Value(key string) any { return in.x.Value(key) }

func (in schemeInput) Add(key, format string, args ...any) { in.c.add(key, format, args...) }

func (in schemeInput) IntAtLeast(key string, p *int, def, minimum int) int {
	return in.c.intAtLeast(key, p, def, minimum)
}

func (in schemeInput) OneOf(key, got, def string, allowed ...string) string {
	return oneOf(in.c, key, got, def, allowed...)
}

// resolveSchemeOptions resolves, in phase, the options of the schemes whose keys are read
// then (keyspace.SchemeKind.ResolveOptions), keeping s's scheme's.
func resolveSchemeOptions(c *checker, f *File, s *Resolved, phase int) {
	t := keyspace.SchemeTable{Shards: s.Shards, Parts: s.Parts, Salt: s.Salt, History: int64(s.History),
		Split: f.Keyspace.Ext.Value(splitTable) != nil, Replay: -1, Field: s.fieldIndex,
		Value: func(i int, v Scalar) (uint64, string, bool) {
			n, ok := fieldValue(s.Fields[i], v)
			return n, describeValues(s.Fields[i]), ok
		}}
	for i := range f.Streams {
		if f.Streams[i].Trace != nil {
			t.Replay = i
			break
		}
	}
	if o, ok := s.Scheme.ResolveOptions(phase, schemeInput{c, f.Keyspace.Ext}, &t); ok {
		s.SchemeOptions = o
	}
}
