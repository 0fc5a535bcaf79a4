package keyspace

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"

	"github.com/shardsim/shardsim/internal/splitmix"
	"github.com/shardsim/shardsim/internal/tomlx"
)

// SchemeHash hashes a key to a shard: modulo the shards, or on a consistent-hash ring.
const SchemeHash SchemeKind = "hash"

// The hash scheme's keys (docs/scenario.md, [keyspace]): hash, "modulo" or "ring", and the
// ring's vnodes, each of which an [[indexes]] entry takes too.
const (
	defaultVnodes = 64
	maxRingPoints = 10_000_000 // shards x vnodes: a ring's memory (docs/performance.md)
)

func init() {
	registerScheme(SchemeHash, schemeDef{rank: 0,
		keys: []SchemeKey{
			{Name: "hash", Type: reflect.TypeFor[HashKind](), Index: true},
			{Name: "vnodes", Type: reflect.TypeFor[*int](), Index: true},
		},
		resolve: resolveHash, always: true,
		describe: func(o SchemeOptions, _ int) (string, string) {
			h, _ := o.(HashOptions)
			return h.Hash, ""
		},
		points: func(o SchemeOptions, shards int) int {
			h, _ := o.(HashOptions)
			return shards * h.Vnodes
		},
		build: func(c SchemeConfig) (Scheme, error) {
			if h, _ := c.Options.(HashOptions); h.Hash == "ring" {
				return NewRing(c.Shards, h.Vnodes), nil
			}
			return NewModulo(c.Shards), nil
		}})
}

// HashKind is how the hash scheme maps a key's hash to a shard, as the keyspace.hash key
// writes it: "modulo" or "ring".
type HashKind string

// DecodeTOML reads "modulo" or "ring".
func (h *HashKind) DecodeTOML(v any) error {
	s, ok := v.(string)
	if !ok || s != "modulo" && s != "ring" {
		got := tomlx.Describe(v)
		if ok {
			got = fmt.Sprintf("%q", s)
		}
		return fmt.Errorf("must be one of \"modulo\", \"ring\" (got %s)", got)
	}
	*h = HashKind(s)
	return nil
}

// HashOptions are the hash scheme's options: Hash, "modulo" or "ring", and the ring's
// points a shard (0 under modulo).
type HashOptions struct {
	Hash   string
	Vnodes int
}

// resolveHash reads hash and vnodes. They are checked whatever the scheme (a variant may
// switch to hash), and a ring's points are bounded by maxRingPoints.
func resolveHash(in SchemeInput, t *SchemeTable) SchemeOptions {
	h, _ := keyValue[HashKind](in, "hash")
	v, _ := keyValue[*int](in, "vnodes")
	o := HashOptions{Hash: in.OneOf("keyspace.hash", string(h), "modulo", "modulo", "ring")}
	vnodes := in.IntAtLeast("keyspace.vnodes", v, defaultVnodes, 1)
	if t.Shards > 0 && vnodes > maxRingPoints/t.Shards {
		in.Add("keyspace.vnodes", "shards x vnodes must be at most %d ring points (got %d x %d)", maxRingPoints, t.Shards, vnodes)
	}
	if o.Hash == "ring" {
		o.Vnodes = vnodes
	}
	return o
}

// Modulo places a key on shard h mod n, where h is the key's 64-bit hash folded to 32 bits
// (h64 xor h64>>32).
type Modulo struct {
	n uint64
	m uint64 // Lemire's magic number for n: ceil(2^64 / n)
}

// NewModulo returns the modulo hash scheme over n shards. It panics if n < 1 or n >= 2^32.
func NewModulo(n int) *Modulo {
	if n < 1 || n >= 1<<32 {
		panic(fmt.Sprintf("keyspace: NewModulo(%d)", n))
	}
	return &Modulo{n: uint64(n), m: ^uint64(0)/uint64(n) + 1}
}

// Shard returns the shard that owns k.
func (m *Modulo) Shard(k *Key) int { return int(m.mod(fold32(k.Hash()))) }

// shardOne is Shard of the one-part key (v).
func (m *Modulo) shardOne(v uint64) int { return int(m.mod(fold32(hashOne(v)))) }

// mod returns a mod n without a division: for 32-bit a and n, the fractional part of a/n,
// held in 64 bits as m*a, times n gives the remainder exactly (Lemire, Kaser and Kurz,
// "Faster remainder by direct computation", Software: Practice and Experience, 2019).
// A 64-bit DIV costs 35 to 90 cycles on the Xeons we run on; this costs two multiplies.
func (m *Modulo) mod(a uint32) uint64 {
	hi, _ := bits.Mul64(m.m*uint64(a), m.n)
	return hi
}

func fold32(h uint64) uint32 { return uint32(h ^ h>>32) }

// Shards returns the number of shards.
func (m *Modulo) Shards() int { return int(m.n) }

// Ring is consistent hashing: every shard owns vnodes points on a 64-bit ring and a key
// belongs to the first point at or after its hash (Karger et al., 1997).
type Ring struct {
	points []uint64 // sorted
	owner  []int32  // owner[i] owns points[i]
	n      int
}

// NewRing returns a ring over n shards with vnodes points each. It panics if n < 1 or
// vnodes < 1.
func NewRing(n, vnodes int) *Ring {
	if n < 1 || vnodes < 1 {
		panic(fmt.Sprintf("keyspace: NewRing(%d, %d)", n, vnodes))
	}
	type pt struct {
		h uint64
		s int32
	}
	pts := make([]pt, 0, n*vnodes)
	for s := 0; s < n; s++ {
		for v := 0; v < vnodes; v++ {
			pts = append(pts, pt{h: splitmix.Mix(uint64(s)<<32 | uint64(v) ^ 0x5bd1e9955bd1e995), s: int32(s)})
		}
	}
	slices.SortFunc(pts, func(a, b pt) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return int(a.s - b.s)
	})
	r := &Ring{points: make([]uint64, len(pts)), owner: make([]int32, len(pts)), n: n}
	for i, p := range pts {
		r.points[i], r.owner[i] = p.h, p.s
	}
	return r
}

// Shard returns the shard that owns k.
func (r *Ring) Shard(k *Key) int {
	h := k.Hash()
	i, _ := slices.BinarySearch(r.points, h)
	if i == len(r.points) {
		i = 0
	}
	return int(r.owner[i])
}

// Shards returns the number of shards.
func (r *Ring) Shards() int { return r.n }
