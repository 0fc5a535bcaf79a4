package keyspace

import (
	"fmt"
	"slices"
)

// Modulo places a key on shard Hash(key) mod n.
type Modulo struct{ n uint64 }

// NewModulo returns the modulo hash scheme over n shards. It panics if n < 1.
func NewModulo(n int) *Modulo {
	if n < 1 {
		panic(fmt.Sprintf("keyspace: NewModulo(%d)", n))
	}
	return &Modulo{n: uint64(n)}
}

// Shard returns the shard that owns k.
func (m *Modulo) Shard(k *Key) int { return int(k.Hash() % m.n) }

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
			pts = append(pts, pt{h: mix64(uint64(s)<<32 | uint64(v) ^ 0x5bd1e9955bd1e995), s: int32(s)})
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
