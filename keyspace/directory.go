package keyspace

import (
	"fmt"
	"reflect"
	"slices"
)

// SchemeDirectory places listed values on listed shards and hashes the other keys.
const SchemeDirectory SchemeKind = "directory"

func init() {
	registerScheme(SchemeDirectory, schemeDef{rank: 2,
		keys:    []SchemeKey{{Name: "directory", Type: reflect.TypeFor[[]DirectoryKey]()}},
		resolve: resolveDirectory, afterKey: true,
		noIndex:  `(it has no entries of its own); use "hash" or "range"`,
		noSplits: `automatic splits need scheme = "range" or "hash": a directory places its rows by hand`,
		noFlags:  "a directory's entries (which values go to which shards) come from a scenario's [[keyspace.directory]], which no flag gives",
		build: func(c SchemeConfig) (Scheme, error) {
			o, _ := c.Options.(DirectoryOptions)
			d, err := NewDirectory(c.Shards, o.Entries)
			if err != nil {
				return nil, err
			}
			return d, nil
		}})
}

// DirectoryKey is one [[keyspace.directory]] entry as a scenario writes it: the rows whose
// field equals value live on the listed shards.
type DirectoryKey struct {
	Field  string `toml:"field"`
	Value  Scalar `toml:"value"`
	Shards []int  `toml:"shards"`
}

// DirectoryOptions are the directory scheme's options: its checked entries.
type DirectoryOptions struct {
	Entries []DirEntry
}

// resolveDirectory reads the directory's entries: each places one value of a plain key
// part on its shards, and some shard must be left for the rows no entry lists.
func resolveDirectory(in SchemeInput, t *SchemeTable) SchemeOptions {
	var o DirectoryOptions
	entries, _ := keyValue[[]DirectoryKey](in, "directory")
	if len(entries) == 0 {
		in.Add("keyspace.directory", "required with scheme = \"directory\": [[keyspace.directory]] entries with field, value and shards")
		return o
	}
	claimed := map[dirClaim]int{}
	shardUsed := map[int]bool{}
	for i, e := range entries {
		key := fmt.Sprintf("keyspace.directory[%d]", i)
		if d, ok := directoryEntry(in, t, key, e, claimed, i); ok && directoryShards(in, key, e.Shards, t.Shards, shardUsed) {
			o.Entries = append(o.Entries, d)
		}
	}
	if t.Shards > 0 && len(shardUsed) >= t.Shards {
		in.Add("keyspace.directory", "the entries name all %d shards, leaving none for the rows they do not list", t.Shards)
	}
	return o
}

// dirClaim is a value of a key part that a directory entry places.
type dirClaim struct {
	part  int
	value uint64
}

// directoryEntry reads entry i's field and value, which no entry before it may place;
// false when they are bad or the entry names no shards.
func directoryEntry(in SchemeInput, t *SchemeTable, key string, e DirectoryKey, claimed map[dirClaim]int, i int) (DirEntry, bool) {
	fi := t.Field(e.Field)
	if fi < 0 {
		in.Add(key+".field", "no such field %q in table.fields", e.Field)
		return DirEntry{}, false
	}
	part := slices.IndexFunc(t.Parts, func(p Part) bool { return p.Kind == FieldPart && p.Field == fi })
	if part < 0 {
		in.Add(key+".field", "%q must be a plain part of keyspace.key for the directory to route by it", e.Field)
		return DirEntry{}, false
	}
	if Salted(t.Salt) {
		part++
	}
	value, values, ok := t.Value(fi, e.Value)
	if !ok {
		in.Add(key+".value", "%v is not a value of field %q (%s)", e.Value, e.Field, values)
		return DirEntry{}, false
	}
	cl := dirClaim{part, value}
	if prev, dup := claimed[cl]; dup {
		in.Add(key+".value", "value %v of %q is already placed by keyspace.directory[%d]", e.Value, e.Field, prev)
		return DirEntry{}, false
	}
	claimed[cl] = i
	if len(e.Shards) == 0 {
		in.Add(key+".shards", "required: the shards that hold these rows")
		return DirEntry{}, false
	}
	return DirEntry{Part: part, Value: value, Shards: e.Shards}, true
}

// directoryShards checks an entry's shards and marks them used; false when one is no shard.
func directoryShards(in SchemeInput, key string, shards []int, n int, used map[int]bool) bool {
	ok := true
	for j, sh := range shards {
		if n > 0 && (sh < 0 || sh >= n) {
			in.Add(fmt.Sprintf("%s.shards[%d]", key, j), "no such shard: shards run from 0 to %d (got %d)", n-1, sh)
			ok = false
			continue
		}
		used[sh] = true
	}
	return ok
}

// DirEntry sends the rows whose key part Part equals Value to Shards, spread over them by a
// hash of the whole key.
type DirEntry struct {
	Part   int
	Value  uint64
	Shards []int
}

// Directory is the directory scheme: an explicit map for some key values, and hash
// placement over the shards no entry names for every other row.
type Directory struct {
	entries []DirEntry
	rest    []int
	n       int
}

// NewDirectory returns the directory scheme over n shards. Entries are checked in order;
// the first that matches a key places it. It returns an error when an entry names a shard
// outside [0, n), names no shard, or when the entries leave no shard for the other rows.
func NewDirectory(n int, entries []DirEntry) (*Directory, error) {
	named := make([]bool, n)
	for i, e := range entries {
		if len(e.Shards) == 0 {
			return nil, fmt.Errorf("directory entry %d names no shard", i)
		}
		for _, s := range e.Shards {
			if s < 0 || s >= n {
				return nil, fmt.Errorf("directory entry %d: no shard %d (shards run from 0 to %d)", i, s, n-1)
			}
			named[s] = true
		}
	}
	d := &Directory{entries: entries, n: n}
	for s, used := range named {
		if !used {
			d.rest = append(d.rest, s)
		}
	}
	if len(d.rest) == 0 {
		return nil, fmt.Errorf("the directory names all %d shards, leaving none for the rows it does not list", n)
	}
	return d, nil
}

// Shard returns the shard that owns k.
func (d *Directory) Shard(k *Key) int {
	for i := range d.entries {
		e := &d.entries[i]
		if int(k.N) > e.Part && k.P[e.Part] == e.Value {
			return e.Shards[k.Hash()%uint64(len(e.Shards))]
		}
	}
	return d.rest[k.Hash()%uint64(len(d.rest))]
}

// Shards returns the number of shards.
func (d *Directory) Shards() int { return d.n }

// Rest returns the shards that hold the rows no entry lists. The slice must not be modified.
func (d *Directory) Rest() []int { return d.rest }
