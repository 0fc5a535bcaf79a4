package detect

// KeyStats sums sampled values (latencies) per id for at most maxKeys ids, in memory taken
// once. An id first seen while every slot is taken is not tracked: Add reports it and
// counts it in Dropped. Slots are handed out in order of first appearance, so the same
// inputs give the same slots.
type KeyStats struct {
	ids     []uint64
	counts  []int64
	sums    []float64
	ix      index
	dropped int64
}

// NewKeyStats returns statistics for up to maxKeys ids (at least 1).
func NewKeyStats(maxKeys int) *KeyStats {
	maxKeys = max(maxKeys, 1)
	return &KeyStats{
		ids:    make([]uint64, 0, maxKeys),
		counts: make([]int64, 0, maxKeys),
		sums:   make([]float64, 0, maxKeys),
		ix:     newIndex(maxKeys),
	}
}

// Add adds v to id's sum and one to its count. slot is where id's figures live; fresh is
// true when id has just been given its slot; ok is false (and slot -1) when id is new but
// every slot is taken, so it is not tracked.
func (k *KeyStats) Add(id uint64, v float64) (slot int, fresh, ok bool) {
	if slot = k.ix.get(id); slot >= 0 {
		k.counts[slot]++
		k.sums[slot] += v
		return slot, false, true
	}
	if len(k.ids) == cap(k.ids) {
		k.dropped++
		return -1, false, false
	}
	slot = len(k.ids)
	k.ids = append(k.ids, id)
	k.counts = append(k.counts, 1)
	k.sums = append(k.sums, v)
	k.ix.put(id, slot)
	return slot, true, true
}

// Len returns the number of ids tracked; their slots are 0..Len()-1.
func (k *KeyStats) Len() int { return len(k.ids) }

// Dropped returns how many values were not added because their id found no free slot.
func (k *KeyStats) Dropped() int64 { return k.dropped }

// At returns the id in slot, its number of values and their sum.
func (k *KeyStats) At(slot int) (id uint64, count int64, sum float64) {
	return k.ids[slot], k.counts[slot], k.sums[slot]
}

// Lookup returns id's slot, or -1 and false when it is not tracked.
func (k *KeyStats) Lookup(id uint64) (slot int, ok bool) {
	slot = k.ix.get(id)
	return slot, slot >= 0
}

// Each calls f for every tracked id, in slot order.
func (k *KeyStats) Each(f func(id uint64, count int64, sum float64, slot int)) {
	for s, id := range k.ids {
		f(id, k.counts[s], k.sums[s], s)
	}
}
