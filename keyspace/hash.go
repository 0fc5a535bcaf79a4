package keyspace

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/shardsim/shardsim/internal/splitmix"
)

// SchemeHash hashes a key to a shard: modulo the shards, or on a consistent-hash ring.
const SchemeHash SchemeKind = "hash"

func init() {
	registerScheme(SchemeHash, schemeDef{rank: 0, build: func(c SchemeConfig) (Scheme, error) {
		if c.Ring {
			return NewRing(c.Shards, c.Vnodes), nil
		}
		return NewModulo(c.Shards), nil
	}})
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
