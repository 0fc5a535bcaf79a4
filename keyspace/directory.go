package keyspace

import "fmt"

// SchemeDirectory places listed values on listed shards and hashes the other keys.
const SchemeDirectory SchemeKind = "directory"

func init() {
	registerScheme(SchemeDirectory, schemeDef{rank: 2, build: func(c SchemeConfig) (Scheme, error) {
		d, err := NewDirectory(c.Shards, c.Directory)
		if err != nil {
			return nil, err
		}
		return d, nil
	}})
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
