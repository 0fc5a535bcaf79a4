package detect

import (
	"cmp"
	"slices"
)

// SpaceSaving finds the most frequent ids of a stream in fixed memory: the Space-Saving
// algorithm of Metwally, Agrawal and El Abbadi ("Efficient computation of frequent and
// top-k elements in data streams", ICDT 2005). It monitors at most capacity ids, each with
// a count. An id already monitored has its count raised; a new id takes a free slot or,
// when none is free, the slot of the id with the smallest count, inheriting that count
// (plus one) and remembering it as its error. Hence for every monitored id
//
//	Count - Error <= true occurrences <= Count,
//
// and every id that occurred more than Total/capacity times is monitored.
//
// The counters sit in a binary min-heap ordered by count, found through an
// open-addressing index, so Add costs O(log capacity) and allocates nothing.
type SpaceSaving struct {
	ids    []uint64
	counts []int64
	errs   []int64
	heap   []int32 // slots, a min-heap on counts
	pos    []int32 // pos[slot] = the slot's place in heap
	ix     index   // id -> slot
	total  int64
}

// Counter is one monitored id: Count overstates its occurrences by at most Error. Slot is
// where it lives in the sketch (what Add returned for it).
type Counter struct {
	ID           uint64
	Count, Error int64
	Slot         int
}

// NewSpaceSaving returns a sketch that monitors up to capacity ids (at least 1).
func NewSpaceSaving(capacity int) *SpaceSaving {
	capacity = max(capacity, 1)
	return &SpaceSaving{
		ids:    make([]uint64, capacity),
		counts: make([]int64, capacity),
		errs:   make([]int64, capacity),
		heap:   make([]int32, 0, capacity),
		pos:    make([]int32, capacity),
		ix:     newIndex(capacity),
	}
}

// Add counts one occurrence of id. It returns the slot (0..capacity-1) that holds id now,
// and fresh = true when the slot has just been given to id (a free slot, or the evicted
// minimum's), so the caller can store a payload for id in its own array at that slot.
func (s *SpaceSaving) Add(id uint64) (slot int, fresh bool) {
	s.total++
	if slot = s.ix.get(id); slot >= 0 {
		s.counts[slot]++
		s.down(int(s.pos[slot]))
		return slot, false
	}
	if n := len(s.heap); n < len(s.ids) {
		slot = n
		s.ids[slot], s.counts[slot], s.errs[slot] = id, 1, 0
		s.heap = append(s.heap, int32(slot))
		s.pos[slot] = int32(n)
		s.up(n)
		s.ix.put(id, slot)
		return slot, true
	}
	slot = int(s.heap[0])
	s.ix.del(s.ids[slot])
	floor := s.counts[slot]
	s.ids[slot], s.counts[slot], s.errs[slot] = id, floor+1, floor
	s.down(0)
	s.ix.put(id, slot)
	return slot, true
}

// Total returns the occurrences counted, monitored or not.
func (s *SpaceSaving) Total() int64 { return s.total }

// Len returns the number of ids monitored.
func (s *SpaceSaving) Len() int { return len(s.heap) }

// Top returns up to k monitored ids with the largest counts, by count (descending) then
// id (ascending). k <= 0 returns every monitored id.
func (s *SpaceSaving) Top(k int) []Counter {
	out := make([]Counter, len(s.heap))
	for slot := range out {
		out[slot] = Counter{ID: s.ids[slot], Count: s.counts[slot], Error: s.errs[slot], Slot: slot}
	}
	slices.SortFunc(out, func(a, b Counter) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if k > 0 && k < len(out) {
		out = out[:k]
	}
	return out
}

// less orders heap entries by count, then slot, so that ties break the same way always.
func (s *SpaceSaving) less(i, j int) bool {
	a, b := s.heap[i], s.heap[j]
	if s.counts[a] != s.counts[b] {
		return s.counts[a] < s.counts[b]
	}
	return a < b
}

func (s *SpaceSaving) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.pos[s.heap[i]], s.pos[s.heap[j]] = int32(i), int32(j)
}

func (s *SpaceSaving) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s.swap(i, p)
		i = p
	}
}

func (s *SpaceSaving) down(i int) {
	n := len(s.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && s.less(c+1, c) {
			c++
		}
		if !s.less(c, i) {
			return
		}
		s.swap(i, c)
		i = c
	}
}
