package keyspace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/internal/splitmix"
)

// Splitter wraps a scheme so that its shards can be split while a run goes on, as range
// stores split a busy or large range and DynamoDB splits a hot partition. Shard ids below
// the base scheme's Shards() are the base scheme's; each split creates the next id, up to
// Max()-1. A split cuts one shard's keys at a split value: on a range scheme the key
// itself (so the new shard owns a contiguous range, the upper part); on a hash scheme a
// second hash of the key, SplitHash (so the new shard owns the keys of the old one whose
// second hash is at or above the split value).
//
// Each base shard keeps a sorted list of split points; a key that the base scheme puts on
// shard b belongs to the shard of the largest point of b's list at or below its value, or
// to b when there is none. Splitting a shard that was itself split off inserts one more
// point into its base shard's list, inside that shard's interval, so routing stays one
// base lookup and one binary search.
type Splitter struct {
	base   Scheme
	rng    *Range // base, when it is the range scheme: split by key order
	max    int
	points [][]splitPoint // per base shard, sorted by value
	made   []SplitPoint   // the splits in the order they were made
}

// splitPoint is one entry of a base shard's list: keys at or above the value (key on a
// range base, h on a hash base) up to the next point belong to shard id.
type splitPoint struct {
	key Key
	h   uint64
	id  int32
}

// SplitPoint describes one split, for reports: Shard was cut from Parent and took the keys
// of Parent (which lies in base shard Base) at or above Key (range base) or whose
// SplitHash is at or above Hash (hash base).
type SplitPoint struct {
	Base, Parent, Shard int
	Key                 Key
	Hash                uint64
}

// SplitHash is the second hash that hash-based splits compare: independent of the hash the
// base scheme places keys by, so that a split halves a shard's keys whatever the base.
// Like Key.Hash it must never change: split placement, and so every result of a run that
// splits, depends on it.
func SplitHash(k *Key) uint64 { return splitmix.Mix(k.Hash() ^ 0xd6e8feb86659fd93) }

// NewSplitter wraps base so that its shards can be split until there are max in all. It
// panics if max < base.Shards().
func NewSplitter(base Scheme, max int) *Splitter {
	if max < base.Shards() {
		panic(fmt.Sprintf("keyspace: NewSplitter: max %d is below the base scheme's %d shards", max, base.Shards()))
	}
	s := &Splitter{base: base, max: max, points: make([][]splitPoint, base.Shards())}
	s.rng, _ = base.(*Range)
	return s
}

// Shard returns the shard that owns k. It does not allocate.
func (s *Splitter) Shard(k *Key) int {
	var b int
	if s.rng != nil {
		b = s.rng.Shard(k) // a direct call saves the interface dispatch
	} else {
		b = s.base.Shard(k)
	}
	pts := s.points[b]
	if len(pts) == 0 {
		return b
	}
	var i int
	if s.rng != nil {
		i = pointsAtOrBelowKey(pts, k)
	} else {
		i = pointsAtOrBelowHash(pts, SplitHash(k))
	}
	if i == 0 {
		return b
	}
	return int(pts[i-1].id)
}

// pointsAtOrBelowKey returns how many points of a range base's list are at or below k.
func pointsAtOrBelowKey(pts []splitPoint, k *Key) int {
	lo, hi := 0, len(pts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pts[mid].key.Compare(k) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// pointsAtOrBelowHash returns how many points of a hash base's list are at or below h.
func pointsAtOrBelowHash(pts []splitPoint, h uint64) int {
	lo, hi := 0, len(pts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pts[mid].h <= h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Shards returns Max(), not the shards that exist now: ids run up to Max()-1 as splits
// happen, and whatever is sized by Shards() (a planner's grouper, a result's per-shard
// arrays) must hold every id a key may be routed to.
func (s *Splitter) Shards() int { return s.max }

// Max returns the most shards there can be.
func (s *Splitter) Max() int { return s.max }

// Live returns the number of shards that exist now; their ids are 0 to Live()-1.
func (s *Splitter) Live() int { return s.base.Shards() + len(s.made) }

// Base returns the wrapped scheme.
func (s *Splitter) Base() Scheme { return s.base }

// Parent returns the shard that shard was split from, or -1 for a base shard.
func (s *Splitter) Parent(shard int) int {
	if shard < s.base.Shards() {
		return -1
	}
	return s.made[shard-s.base.Shards()].Parent
}

// BaseShard returns the base shard whose keys shard holds some of.
func (s *Splitter) BaseShard(shard int) int {
	if shard < s.base.Shards() {
		return shard
	}
	return s.made[shard-s.base.Shards()].Base
}

// Splits returns the splits made so far, in the order they were made: Splits()[i] made
// shard Base().Shards()+i. The slice must not be modified.
func (s *Splitter) Splits() []SplitPoint { return s.made }

// String lists the splits, one a line, e.g. "shard 12 from 3 (base 3) at [17 4]".
func (s *Splitter) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of at most %d shards", s.Live(), s.max)
	for _, m := range s.made {
		fmt.Fprintf(&b, "\nshard %d from %d (base %d) at ", m.Shard, m.Parent, m.Base)
		if s.rng != nil {
			fmt.Fprint(&b, m.Key.Parts())
		} else {
			fmt.Fprintf(&b, "hash %#016x", m.Hash)
		}
	}
	return b.String()
}

// Split splits shard at the median of recent, keys recently seen on it, and returns the
// new shard, which takes the keys at or above the median (by key on a range base, by
// SplitHash on a hash base). Keys of recent that no longer route to shard (seen before an
// earlier split moved them) are ignored; recent is reordered in place. It makes no split
// and returns ok = false when the splitter has Max() shards, shard does not exist, no key
// of recent routes to it, or no recent key lies below the median (one side would be
// empty: all keys equal, or the median is the shard's lower bound). For an even count the
// median is the upper middle key.
func (s *Splitter) Split(shard int, recent []Key) (newShard int, ok bool) {
	live := s.Live()
	if live >= s.max || shard < 0 || shard >= live {
		return 0, false
	}
	n := 0
	for i := range recent {
		if s.Shard(&recent[i]) == shard {
			recent[n], recent[i] = recent[i], recent[n]
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	keys := recent[:n]
	var p splitPoint
	if s.rng != nil {
		slices.SortFunc(keys, func(a, b Key) int { return a.Compare(&b) })
		if keys[n/2].Compare(&keys[0]) == 0 {
			return 0, false
		}
		p.key = keys[n/2]
		for i := int(p.key.N); i < MaxParts; i++ {
			p.key.P[i] = 0 // parts past N are not part of the key
		}
	} else {
		hs := make([]uint64, n)
		for i := range keys {
			hs[i] = SplitHash(&keys[i])
		}
		slices.Sort(hs)
		if hs[n/2] == hs[0] {
			return 0, false
		}
		p.h = hs[n/2]
	}
	// Every recent key lies in shard's interval, so the median does too, strictly above
	// its lower bound: the new point goes right after shard's own point (or first, for a
	// base shard) and the list stays sorted.
	b := s.BaseShard(shard)
	pts := s.points[b]
	at := 0
	if shard != b {
		for pts[at].id != int32(shard) {
			at++
		}
		at++
	}
	p.id = int32(live)
	s.points[b] = slices.Insert(pts, at, p)
	s.made = append(s.made, SplitPoint{Base: b, Parent: shard, Shard: live, Key: p.key, Hash: p.h})
	return live, true
}

// spans reports whether the splitter can say which shards hold a range of keys: only
// when its base is the range scheme.
func (s *Splitter) spans() bool { return s.rng != nil }

// spanInto adds to g, once each, every live shard whose keys overlap [lo, hi]: the base
// shards the range scheme spans and, within each, exactly the split-off shards whose
// intervals overlap. It must be called only when spans() holds.
func (s *Splitter) spanInto(g *grouper, lo, hi *Key) {
	first, last := s.rng.Span(lo, hi)
	for b := first; b <= last; b++ {
		pts := s.points[b]
		// Owners in b's list, in key order: 0 is b itself, i > 0 is pts[i-1]. A bound
		// outside b's range counts all or none of the points, as it should.
		from, to := pointsAtOrBelowKey(pts, lo), pointsAtOrBelowKey(pts, hi)
		for i := from; i <= to; i++ {
			if i == 0 {
				g.add(b)
			} else {
				g.add(int(pts[i-1].id))
			}
		}
	}
}

// liveShards returns the shards a scatter must visit: the live ones of a splitter, every
// shard of any other scheme.
func liveShards(s Scheme) int {
	if sp, ok := s.(*Splitter); ok {
		return sp.Live()
	}
	return s.Shards()
}
