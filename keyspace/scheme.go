package keyspace

import "sort"

// SchemeKind names a shard scheme as a scenario writes it (docs/keys.md, "Schemes";
// docs/scenario.md, keyspace.scheme). Each scheme's file registers its kind with what it
// builds (registerScheme), so a new scheme is its file, its test and its documentation.
type SchemeKind string

// SchemeConfig is everything a scheme may be built from; each scheme reads its own part.
type SchemeConfig struct {
	Shards int
	// Ring and Vnodes: the hash scheme's consistent-hash ring (false: modulo).
	Ring   bool
	Vnodes int
	// Sample returns the keys whose quantiles are the range scheme's splits; it is called
	// only by the schemes that cut splits.
	Sample func() []Key
	// Directory is the directory scheme's entries.
	Directory []DirEntry
	// Slots and TextParts are redis_cluster's slot ranges and the key parts (salt
	// included) that hold a log's key text, whose slot they carry.
	Slots     []SlotRange
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
	build func(SchemeConfig) (Scheme, error)
}

var schemes = map[SchemeKind]schemeDef{}

// registerScheme adds a scheme; each scheme's file calls it from init.
func registerScheme(k SchemeKind, d schemeDef) {
	if _, ok := schemes[k]; ok {
		panic("keyspace: scheme " + string(k) + " registered twice")
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

// Ordered reports whether the scheme keeps the keys' order (range).
func (k SchemeKind) Ordered() bool { return schemes[k].ordered }

// Slots reports whether a key's slot routes it (redis_cluster).
func (k SchemeKind) Slots() bool { return schemes[k].slots }

// Build builds the scheme from c. It fails on a configuration the scenario's validation
// should have refused, and panics on an unknown kind.
func (k SchemeKind) Build(c SchemeConfig) (Scheme, error) {
	d, ok := schemes[k]
	if !ok {
		panic("keyspace: unknown scheme " + string(k))
	}
	return d.build(c)
}
