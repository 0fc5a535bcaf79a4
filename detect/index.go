package detect

import "github.com/shardsim/shardsim/internal/splitmix"

// index maps uint64 ids to small non-negative ints by open addressing with linear probing.
// Its table has a power-of-two size at least twice the number of entries it may hold, so
// probes stay short; deletion shifts the following entries back (no tombstones), so a
// long run of inserts and deletes never degrades it. It allocates only in newIndex.
type index struct {
	keys []uint64
	vals []int32 // value+1; 0 marks an empty cell
	mask uint64
}

func newIndex(entries int) index {
	size := 8
	for size < 2*entries {
		size <<= 1
	}
	return index{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
}

// Hash64 mixes x into a 64-bit hash whose bits all depend on every bit of x (the
// SplitMix64 finalizer). It is a bijection, so distinct ids keep distinct hashes.
func Hash64(x uint64) uint64 { return splitmix.Mix(x) }

// get returns id's value, or -1.
func (ix *index) get(id uint64) int {
	for i := Hash64(id) & ix.mask; ; i = (i + 1) & ix.mask {
		v := ix.vals[i]
		if v == 0 {
			return -1
		}
		if ix.keys[i] == id {
			return int(v - 1)
		}
	}
}

// put stores id -> v; id must not be present and the table must have room.
func (ix *index) put(id uint64, v int) {
	i := Hash64(id) & ix.mask
	for ix.vals[i] != 0 {
		i = (i + 1) & ix.mask
	}
	ix.keys[i], ix.vals[i] = id, int32(v+1)
}

// del removes id if present, moving back the entries that probed past its cell.
func (ix *index) del(id uint64) {
	i := Hash64(id) & ix.mask
	for {
		if ix.vals[i] == 0 {
			return
		}
		if ix.keys[i] == id {
			break
		}
		i = (i + 1) & ix.mask
	}
	// Backward-shift deletion: walk the cluster after i; an entry whose home cell h is not
	// cyclically in (i, j] may move into the hole at i.
	for j := (i + 1) & ix.mask; ix.vals[j] != 0; j = (j + 1) & ix.mask {
		h := Hash64(ix.keys[j]) & ix.mask
		if (j-h)&ix.mask >= (j-i)&ix.mask {
			ix.keys[i], ix.vals[i] = ix.keys[j], ix.vals[j]
			i = j
		}
	}
	ix.keys[i], ix.vals[i] = 0, 0
}
