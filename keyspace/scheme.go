package keyspace

import (
	"reflect"
	"slices"
	"sort"
)

// SchemeKind names a shard scheme as a scenario writes it (docs/keys.md, "Schemes";
// docs/scenario.md, keyspace.scheme). Each scheme's file registers its kind with its keys,
// how they are resolved and what it builds (registerScheme), so a new scheme is its file,
// its test and its documentation: scenario and compile reach it only through the methods
// below and name no scheme.
type SchemeKind string

// SchemeKey is a key a scheme declares in [keyspace]: its name and the type its value
// decodes into, as a field of the table would be typed (a pointer for an optional number);
// Index: each [[indexes]] entry takes it too. scenario declares every scheme's keys to its
// decoder (mechanisms/index those an [[indexes]] entry takes), so they decode with the same file-line-key errors and suggestions as the
// table's own keys.
type SchemeKey struct {
	Name  string
	Type  reflect.Type
	Index bool
}

// SchemeInput is what a scheme's resolver reads its keys from and reports its problems to
// (scenario's checker over [keyspace], or over an [[indexes]] entry, whose problems it moves
// under indexes[i]).
type SchemeInput interface {
	// Value is the decoded value of one of the scheme's keys, a pointer to a value of its
	// declared type, or nil when the table does not give it.
	Value(key string) any
	// Add reports a problem at a dotted key ("keyspace.vnodes").
	Add(key, format string, args ...any)
	// IntAtLeast reads an optional whole number: def when absent, at least minimum.
	IntAtLeast(key string, p *int, def, minimum int) int
	// OneOf reads an optional word: def when empty, one of allowed.
	OneOf(key, got, def string, allowed ...string) string
}

// SchemeTable is what a scheme's options are checked against: the rest of the resolved
// table and scenario.
type SchemeTable struct {
	Shards  int    // the table's shards (0: they are in error)
	Parts   []Part // the key's parts, salt not included
	Salt    int    // salt buckets (Salted)
	History int64  // table.history, in nanoseconds
	Split   bool   // [keyspace.split] is given
	Replay  int    // the first stream that replays a log (-1: none)
	// Field is the index of the field named name (-1: none); Value the internal value of
	// v written for field i, and false with a description of the field's values when v is
	// none of them.
	Field func(name string) int
	Value func(field int, v Scalar) (uint64, string, bool)
}

// SchemeOptions are a scheme's resolved options, of the scheme's own type (nil: it has
// none). They hold only what changes its placement, so two equal ones place alike.
type SchemeOptions any

// SchemeConfig is everything a scheme is built from: its shards and options, and what the
// compiler supplies for the schemes that need it.
type SchemeConfig struct {
	Shards  int
	Options SchemeOptions
	// Sample returns the keys whose quantiles are an ordered scheme's splits; it is called
	// only by the schemes that cut splits.
	Sample func() []Key
	// TextParts are the key parts (salt included) that hold a log's key text, whose slot
	// they carry (the schemes that route by slot read it).
	TextParts uint8
}

// schemeDef is a registered scheme.
type schemeDef struct {
	// rank orders the schemes in lists of names (docs/scenario.md's order).
	rank int
	// ordered: the scheme keeps the keys' order (its shards are ranges of keys, a log's
	// text key parts keep their byte order, a split's child follows its parent).
	ordered bool
	// slots: a key's slot, from its text, routes it (a replay carries each record's slot).
	slots bool
	// keys are the scheme's own keys.
	keys []SchemeKey
	// resolve reads and checks the scheme's keys into its options (nil: it has none).
	resolve func(in SchemeInput, t *SchemeTable) SchemeOptions
	// always: resolve runs whatever the scheme, beside the shards, so that a variant that
	// switches scheme is still told of its mistakes; its options are kept only for the
	// scheme that runs. Otherwise it runs for its own scheme, after the key's parts when
	// afterKey (it reads them), else beside the shards.
	always, afterKey bool
	// shards is the table's shards when keyspace.shards is not given (0: it is required).
	shards func(in SchemeInput) int
	// noIndex and noSplits say why an [[indexes]] entry cannot use the scheme, and why its
	// shards cannot split automatically; noFlags why no command-line flag can give it,
	// for analyze's --scheme ("": they can).
	noIndex, noSplits, noFlags string
	// describe is what a key's description says of the options after the scheme's name
	// (qual, "modulo") and in place of "N shards" (over) ("": nothing).
	describe func(o SchemeOptions, shards int) (qual, over string)
	// points is the number of points of the scheme's lookup structure (a ring's), whose
	// memory the run's estimate counts (nil: none worth counting).
	points func(o SchemeOptions, shards int) int
	build  func(SchemeConfig) (Scheme, error)
}

var schemes = map[SchemeKind]schemeDef{}

// registerScheme adds a scheme; each scheme's file calls it from init. A name or a key
// registered twice panics.
func registerScheme(k SchemeKind, d schemeDef) {
	if _, ok := schemes[k]; ok {
		panic("keyspace: scheme " + string(k) + " registered twice")
	}
	for _, key := range d.keys {
		for _, other := range schemes {
			if slices.ContainsFunc(other.keys, func(o SchemeKey) bool { return o.Name == key.Name }) {
				panic("keyspace: key " + key.Name + " of scheme " + string(k) + " declared twice")
			}
		}
	}
	schemes[k] = d
}

// DefaultScheme is the scheme of a scenario that names none.
const DefaultScheme = SchemeHash

// ParseScheme returns the scheme named name, and whether there is one.
func ParseScheme(name string) (SchemeKind, bool) {
	_, ok := schemes[SchemeKind(name)]
	return SchemeKind(name), ok
}

// SchemeNames lists the schemes' names, in the documentation's order.
func SchemeNames() []string {
	names := make([]string, 0, len(schemes))
	for k := range schemes {
		names = append(names, string(k))
	}
	sort.Slice(names, func(i, j int) bool {
		return schemes[SchemeKind(names[i])].rank < schemes[SchemeKind(names[j])].rank
	})
	return names
}

// SchemeKeys lists every scheme's own keys, scheme by scheme in the documentation's order.
func SchemeKeys() []SchemeKey {
	var keys []SchemeKey
	for _, name := range SchemeNames() {
		keys = append(keys, schemes[SchemeKind(name)].keys...)
	}
	return keys
}

// Ordered reports whether the scheme keeps the keys' order (range).
func (k SchemeKind) Ordered() bool { return schemes[k].ordered }

// FlagSchemes lists, in the documentation's order, the schemes that command-line flags can
// give whole (analyze's --scheme): those whose options all have defaults.
func FlagSchemes() []string {
	var names []string
	for _, name := range SchemeNames() {
		if schemes[SchemeKind(name)].noFlags == "" {
			names = append(names, name)
		}
	}
	return names
}

// NoFlags says why no command-line flag can give the scheme ("": flags can, FlagSchemes).
func (k SchemeKind) NoFlags() string { return schemes[k].noFlags }

// Slots reports whether a key's slot routes it (redis_cluster).
func (k SchemeKind) Slots() bool { return schemes[k].slots }

// Shards is the table's shards that the scheme's keys give when keyspace.shards is not
// given (0: keyspace.shards is required).
func (k SchemeKind) Shards(in SchemeInput) int {
	if d := schemes[k]; d.shards != nil {
		return d.shards(in)
	}
	return 0
}

// The phases of a scheme's resolution (ResolveOptions): beside the shards, before the
// keyspace.splits check (every scheme's that runs always) and after it (the scheme's own),
// and after the key's parts.
const (
	PhaseAlways = iota
	PhaseShards
	PhaseKey
)

// ResolveOptions resolves, in phase, the options of the schemes whose keys are read then:
// in PhaseAlways every scheme's that is always checked, in the others k's own. It returns
// k's options when they were resolved in this phase, and whether they were.
func (k SchemeKind) ResolveOptions(phase int, in SchemeInput, t *SchemeTable) (SchemeOptions, bool) {
	if phase == PhaseAlways {
		var own SchemeOptions
		found := false
		for _, name := range SchemeNames() {
			d := schemes[SchemeKind(name)]
			if d.always && d.resolve != nil {
				o := d.resolve(in, t)
				if SchemeKind(name) == k {
					own, found = o, true
				}
			}
		}
		return own, found
	}
	d := schemes[k]
	if d.resolve == nil || d.always || d.afterKey != (phase == PhaseKey) {
		return nil, false
	}
	return d.resolve(in, t), true
}

// IndexRefusal says why an [[indexes]] entry cannot use the scheme ("": it can).
func (k SchemeKind) IndexRefusal() string { return schemes[k].noIndex }

// SplitRefusal says why the scheme's shards cannot split automatically ("": they can).
func (k SchemeKind) SplitRefusal() string { return schemes[k].noSplits }

// Describe is what a key's description says of the scheme's options: after its name
// (qual, "" for nothing) and in place of "N shards" (over, "" for that).
func (k SchemeKind) Describe(o SchemeOptions, shards int) (qual, over string) {
	if d := schemes[k]; d.describe != nil {
		return d.describe(o, shards)
	}
	return "", ""
}

// Points is the number of points of the scheme's lookup structure (a consistent-hash
// ring's), whose memory a run's estimate counts; 0 when it has none worth counting.
func (k SchemeKind) Points(o SchemeOptions, shards int) int {
	if d := schemes[k]; d.points != nil {
		return d.points(o, shards)
	}
	return 0
}

// Build builds the scheme from c. It fails on a configuration the scenario's validation
// should have refused, and panics on an unknown kind.
func (k SchemeKind) Build(c SchemeConfig) (Scheme, error) {
	d, ok := schemes[k]
	if !ok {
		panic("keyspace: unknown scheme " + string(k))
	}
	return d.build(c)
}

// keyValue is the value of the scheme's key name of type T in, and whether it was given.
func keyValue[T any](in SchemeInput, name string) (T, bool) {
	if p, ok := in.Value(name).(*T); ok {
		return *p, true
	}
	var zero T
	return zero, false
}
