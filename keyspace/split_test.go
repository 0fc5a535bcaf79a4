package keyspace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func key1(v uint64) Key { return Key{N: 1, P: [MaxParts]uint64{v}} }

// hundreds is a range scheme over one-part keys with splits at 100, 200 and 300.
func hundreds() *Range { return NewRange([]Key{key1(100), key1(200), key1(300)}) }

// keyRange returns the one-part keys lo..hi-1, in a scrambled order (Split must not rely on
// the order it is given).
func keyRange(lo, hi uint64) []Key {
	ks := make([]Key, 0, hi-lo)
	for v := lo; v < hi; v++ {
		ks = append(ks, key1(v))
	}
	rand.New(rand.NewPCG(uint64(lo), uint64(hi))).Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
	return ks
}

// TestSplitRangeAtMedian splits a range scheme step by step and checks every key 0..399
// after each step against an owner table updated by the rule itself: the keys of the split
// shard at or above the median move to the new id, nothing else moves.
func TestSplitRangeAtMedian(t *testing.T) {
	sp := NewSplitter(hundreds(), 10)
	var owner [400]int
	for v := range owner {
		owner[v] = v / 100
	}
	for i, step := range []struct {
		shard  int
		lo, hi uint64 // recent keys: lo..hi-1
		median uint64
		want   int
	}{
		{shard: 1, lo: 100, hi: 200, median: 150, want: 4},
		{shard: 4, lo: 150, hi: 200, median: 175, want: 5}, // a child split again
		{shard: 1, lo: 100, hi: 150, median: 125, want: 6}, // the base shard, below its child
		{shard: 0, lo: 10, hi: 20, median: 15, want: 7},
		{shard: 3, lo: 300, hi: 301, median: 0, want: -1}, // one key: no key below the median
		{shard: 3, lo: 300, hi: 302, median: 301, want: 8},
	} {
		got, ok := sp.Split(step.shard, keyRange(step.lo, step.hi))
		if step.want < 0 {
			if ok {
				t.Fatalf("step %d: split of shard %d made shard %d, want a refusal", i, step.shard, got)
			}
			continue
		}
		if !ok || got != step.want {
			t.Fatalf("step %d: Split(%d) = %d, %v; want %d, true", i, step.shard, got, ok, step.want)
		}
		if m := sp.Splits()[len(sp.Splits())-1]; m.Key.Compare(ptr(key1(step.median))) != 0 || m.Parent != step.shard || sp.Parent(got) != step.shard {
			t.Fatalf("step %d: split recorded as %+v, want parent %d at %d", i, m, step.shard, step.median)
		}
		for v := step.median; v < 400; v++ {
			if owner[v] == step.shard {
				owner[v] = got
			}
		}
		for v := range owner {
			k := key1(uint64(v))
			if s := sp.Shard(&k); s != owner[v] {
				t.Fatalf("step %d: key %d on shard %d, want %d", i, v, s, owner[v])
			}
		}
		if sp.Live() != got+1 {
			t.Fatalf("step %d: %d live shards, want %d", i, sp.Live(), got+1)
		}
	}
	if sp.Shards() != 10 || sp.Base().Shards() != 4 {
		t.Errorf("Shards() = %d, Base().Shards() = %d; want 10 and 4", sp.Shards(), sp.Base().Shards())
	}
}

func ptr(k Key) *Key { return &k }

// TestSplitChainOfNewestKeys: increasing keys (a time-ordered id) all land on the top range;
// splitting the shard that took the last window's writes, at their median, leaves the
// older half where it was and makes the new shard take every later write, so that repeated
// splits build a chain of shards, each owning a slice of time.
func TestSplitChainOfNewestKeys(t *testing.T) {
	sp := NewSplitter(hundreds(), 13)
	const window = 1000
	top, next := 3, uint64(1000) // keys from 1000 up are above every split
	var medians []uint64
	var chain []int
	for w := 0; w < 8; w++ {
		recent := keyRange(next, next+window)
		for i := range recent {
			if s := sp.Shard(&recent[i]); s != top {
				t.Fatalf("window %d: new key %d on shard %d, want the top shard %d", w, recent[i].P[0], s, top)
			}
		}
		s, ok := sp.Split(top, recent)
		if !ok || sp.Parent(s) != top {
			t.Fatalf("window %d: split of the top shard %d: %d, %v", w, top, s, ok)
		}
		medians = append(medians, next+window/2)
		chain = append(chain, s)
		top, next = s, next+window
	}
	if _, ok := sp.Split(top, keyRange(next, next+window)); !ok || sp.Live() != 13 {
		t.Fatalf("the ninth split failed or left %d live shards", sp.Live())
	}
	if _, ok := sp.Split(sp.Live()-1, keyRange(next+window, next+2*window)); ok {
		t.Fatal("a split beyond 13 shards was made")
	}
	// Shard chain[i] owns [medians[i], medians[i+1]); below medians[0], shard 3 as before.
	for v := uint64(300); v < medians[len(medians)-1]; v += 7 {
		want := 3
		for i, m := range medians[:len(medians)-1] {
			if v >= m {
				want = chain[i]
			}
		}
		k := key1(v)
		if got := sp.Shard(&k); got != want {
			t.Fatalf("key %d on shard %d, want %d", v, got, want)
		}
	}
}

// TestSplitHashHalvesOneShard: on hash schemes a split of shard 1 at the median of 10,000 of
// its keys moves about half of its keys (over 100,000 fresh keys; the median of 10,000 is
// off by 0.5% at one standard deviation, so 2% is four) and no key of another shard.
func TestSplitHashHalvesOneShard(t *testing.T) {
	dir, err := NewDirectory(4, []DirEntry{{Part: 0, Value: 3, Shards: []int{0}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		base Scheme
	}{{"modulo", NewModulo(4)}, {"ring", NewRing(4, 16)}, {"directory", dir}} {
		sp := NewSplitter(tc.base, 6)
		var recent []Key
		for v := uint64(0); len(recent) < 10_000; v++ {
			if k := key1(v); tc.base.Shard(&k) == 1 {
				recent = append(recent, k)
			}
		}
		s, ok := sp.Split(1, recent)
		if !ok || s != 4 {
			t.Fatalf("%s: Split(1) = %d, %v; want 4, true", tc.name, s, ok)
		}
		var on1, moved int
		for v := uint64(1 << 40); v < 1<<40+100_000; v++ {
			k := key1(v)
			b, got := tc.base.Shard(&k), sp.Shard(&k)
			switch {
			case b != 1 && got != b:
				t.Fatalf("%s: key %d of shard %d moved to %d", tc.name, v, b, got)
			case b == 1 && got != 1 && got != 4:
				t.Fatalf("%s: key %d of shard 1 went to %d", tc.name, v, got)
			case b == 1 && (got == 4) != (SplitHash(&k) >= sp.Splits()[0].Hash):
				t.Fatalf("%s: key %d on %d disagrees with its split hash", tc.name, v, got)
			}
			if b == 1 {
				on1++
				if got == 4 {
					moved++
				}
			}
		}
		if share := float64(moved) / float64(on1); math.Abs(share-0.5) > 0.02 {
			t.Errorf("%s: the new shard took %.4f of shard 1's keys, want 0.5 +- 0.02", tc.name, share)
		}
	}
}

// TestSplitRefuses: no split, and no change of routing, at the limit, on keys that do not
// route to the shard, and when the median leaves no recent key below it.
func TestSplitRefuses(t *testing.T) {
	same := func(n int, v uint64) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = key1(v)
		}
		return ks
	}
	for _, tc := range []struct {
		name   string
		base   Scheme
		max    int
		shard  int
		recent []Key
	}{
		{"at max", hundreds(), 4, 1, keyRange(100, 200)},
		{"no keys", hundreds(), 8, 1, nil},
		{"identical keys", hundreds(), 8, 1, same(50, 120)},
		{"identical keys, hash", NewModulo(4), 8, NewModulo(4).Shard(ptr(key1(5))), same(50, 5)},
		{"median at the lower bound", hundreds(), 8, 1, append(same(3, 100), key1(150))},
		{"median at the smallest key", hundreds(), 8, 1, append(same(3, 120), key1(150))},
		{"keys of another shard", hundreds(), 8, 1, keyRange(200, 300)},
		{"no such shard", hundreds(), 8, 4, keyRange(100, 200)},
		{"negative shard", hundreds(), 8, -1, keyRange(100, 200)},
	} {
		sp := NewSplitter(tc.base, tc.max)
		if s, ok := sp.Split(tc.shard, tc.recent); ok {
			t.Errorf("%s: split made shard %d", tc.name, s)
		}
		if sp.Live() != tc.base.Shards() || len(sp.Splits()) != 0 {
			t.Errorf("%s: %d live shards after a refused split", tc.name, sp.Live())
		}
		for v := uint64(0); v < 400; v++ {
			k := key1(v)
			if sp.Shard(&k) != tc.base.Shard(&k) {
				t.Fatalf("%s: key %d moved", tc.name, v)
			}
		}
	}
}

// TestSplitterAgainstReference: random splits of random multi-part keys, on a range and a
// hash base, against an owner table updated by the rule (a key of the split shard moves
// when its value is at or above the median of the recent keys given).
func TestSplitterAgainstReference(t *testing.T) {
	for _, base := range []Scheme{NewRange(SplitsFromSample(randKeys(3, 300), 5)), NewModulo(5)} {
		r := rand.New(rand.NewPCG(4, 4))
		pool := randKeys(5, 3000)
		owner := make([]int, len(pool))
		for i := range pool {
			owner[i] = base.Shard(&pool[i])
		}
		sp := NewSplitter(base, 40)
		_, isRange := base.(*Range)
		for step := 0; step < 200 && sp.Live() < 40; step++ {
			shard := r.IntN(sp.Live())
			var recent []Key
			for i := range pool {
				if owner[i] == shard && r.IntN(3) == 0 {
					recent = append(recent, pool[i])
				}
			}
			given := slices.Clone(recent)
			s, ok := sp.Split(shard, recent)
			if !ok {
				continue
			}
			// The split value must be the (upper) median of what was given.
			last := sp.Splits()[len(sp.Splits())-1]
			at := func(k *Key) bool { return k.Compare(&last.Key) >= 0 }
			if isRange {
				slices.SortFunc(given, func(a, b Key) int { return a.Compare(&b) })
				if m := given[len(given)/2]; m.Compare(&last.Key) != 0 {
					t.Fatalf("step %d: split at %v, the median is %v", step, last.Key.Parts(), m.Parts())
				}
			} else {
				at = func(k *Key) bool { return SplitHash(k) >= last.Hash }
				hs := make([]uint64, len(given))
				for i := range given {
					hs[i] = SplitHash(&given[i])
				}
				slices.Sort(hs)
				if hs[len(hs)/2] != last.Hash {
					t.Fatalf("step %d: split at hash %x, the median is %x", step, last.Hash, hs[len(hs)/2])
				}
			}
			for i := range pool {
				if owner[i] == shard && at(&pool[i]) {
					owner[i] = s
				}
			}
			for i := range pool {
				if got := sp.Shard(&pool[i]); got != owner[i] {
					t.Fatalf("step %d: key %v on shard %d, want %d", step, pool[i].Parts(), got, owner[i])
				}
			}
		}
		if sp.Live() < 20 {
			t.Errorf("only %d shards after 200 attempts", sp.Live())
		}
	}
}

func randKeys(seed uint64, n int) []Key {
	r := rand.New(rand.NewPCG(seed, seed))
	ks := make([]Key, n)
	for i := range ks {
		ks[i].N = uint8(1 + r.IntN(3))
		for j := uint8(0); j < ks[i].N; j++ {
			ks[i].P[j] = uint64(r.IntN(40))
		}
	}
	return ks
}

// TestScatterVisitsLiveShards: a scatter over a splitter, by ScatterPlanner or by a query
// with a scatter part, visits each live shard once, splits made after the planner was
// built included; the old constructor still visits the shards it was given.
func TestScatterVisitsLiveShards(t *testing.T) {
	sp := NewSplitter(hundreds(), 10)
	scatter := NewScatterPlannerFor(sp)
	d := &Design{Parts: []Part{{Kind: FieldPart}}}
	query, err := NewQueryPlanner(d, sp, []PartQuery{{Mode: Scatter}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, v []Visit, want int) {
		t.Helper()
		seen := make([]int, 10)
		for _, x := range v {
			seen[x.Shard]++
			if x.Partitions != 1 {
				t.Errorf("%s: %d partitions on shard %d, want 1", what, x.Partitions, x.Shard)
			}
		}
		for s, n := range seen {
			if w := b2i(s < want); n != w {
				t.Errorf("%s: shard %d visited %d times, want %d (live %d)", what, s, n, w, want)
			}
		}
	}
	for _, split := range []struct {
		shard  int
		lo, hi uint64
	}{{-1, 0, 0}, {1, 100, 200}, {4, 150, 200}, {0, 0, 100}} {
		if split.shard >= 0 {
			if _, ok := sp.Split(split.shard, keyRange(split.lo, split.hi)); !ok {
				t.Fatalf("split of %d refused", split.shard)
			}
		}
		check("scatter planner", scatter.Plan(nil, nil, nil, 0), sp.Live())
		check("query scatter", query.Plan(nil, nil, []uint64{0}, 0), sp.Live())
	}
	if v := NewScatterPlanner(4).Plan(nil, nil, nil, 0); len(v) != 4 {
		t.Errorf("NewScatterPlanner(4) visits %d shards", len(v))
	}
	if v := NewScatterPlannerFor(NewModulo(6)).Plan(nil, nil, nil, 0); len(v) != 6 {
		t.Errorf("NewScatterPlannerFor(modulo 6) visits %d shards", len(v))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// identity bounds a raw time field by the time itself.
type identity struct{}

func (identity) Bounds(t int64) (lo, hi uint64) { return uint64(t), uint64(t) }

// TestSpanOverSplitRange: a time-range query over a split range scheme visits, once each,
// exactly the shards that own some key in [lo, hi] (found by routing every key in it).
func TestSpanOverSplitRange(t *testing.T) {
	sp := NewSplitter(hundreds(), 10)
	for _, s := range []struct {
		shard  int
		lo, hi uint64
	}{{1, 100, 200}, {4, 150, 200}, {3, 300, 400}, {0, 0, 100}} {
		if _, ok := sp.Split(s.shard, keyRange(s.lo, s.hi)); !ok {
			t.Fatalf("split of %d refused", s.shard)
		}
	}
	// Now: 0 [0,50) 7 [50,100) 1 [100,150) 4 [150,175) 5 [175,200) 2 3 [300,350) 6 [350,..).
	d := &Design{Parts: []Part{{Kind: FieldPart}}}
	for _, tc := range []struct {
		lo, hi uint64
		n      int // shards, as a check on the brute force
	}{
		{120, 160, 2}, {160, 180, 2}, {180, 320, 3}, {0, 500, 8}, {360, 400, 1},
		{100, 149, 1}, {149, 150, 2}, {50, 50, 1}, {49, 50, 2}, {199, 200, 2}, {0, 0, 1},
	} {
		q, err := NewQueryPlanner(d, sp, []PartQuery{{Mode: TimeRange, Span: int64(tc.hi-tc.lo) + 1, Bounds: identity{}}})
		if err != nil || q.Scatters() {
			t.Fatalf("NewQueryPlanner over a split range: %v, scatters %v", err, q != nil && q.Scatters())
		}
		v := q.Plan(nil, nil, []uint64{0}, int64(tc.hi)+1)
		var want []int
		for x := tc.lo; x <= tc.hi; x++ {
			if s := sp.Shard(ptr(key1(x))); !slices.Contains(want, s) {
				want = append(want, s)
			}
		}
		var got []int
		for _, x := range v {
			got = append(got, int(x.Shard))
			if x.Partitions != 1 {
				t.Errorf("[%d, %d]: shard %d visited %d times", tc.lo, tc.hi, x.Shard, x.Partitions)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(want) != tc.n {
			t.Errorf("[%d, %d]: visits %v, want %v (%d shards)", tc.lo, tc.hi, got, want, tc.n)
		}
	}
	// A hash base cannot span: the query scatters over the live shards.
	hs := NewSplitter(NewModulo(4), 8)
	hs.Split(2, keyRange(0, 1000))
	q, _ := NewQueryPlanner(d, hs, []PartQuery{{Mode: TimeRange, Span: 10, Bounds: identity{}}})
	if v := q.Plan(nil, nil, []uint64{0}, 10); !q.Scatters() || len(v) != 5 {
		t.Errorf("time range over a split hash scheme: scatters %v, %d visits; want true, 5", q.Scatters(), len(v))
	}
}

// TestSplitterShardDoesNotAllocate: routing through a splitter, and planning a point
// request through it, allocate nothing.
func TestSplitterShardDoesNotAllocate(t *testing.T) {
	rg := NewSplitter(hundreds(), 10)
	rg.Split(1, keyRange(100, 200))
	rg.Split(4, keyRange(150, 200))
	hs := NewSplitter(NewRing(4, 8), 10)
	hs.Split(1, randKeysOn(NewRing(4, 8), 1, 500))
	k := key1(180)
	fields := []uint64{180}
	pp := NewPointPlanner(&Design{Parts: []Part{{Kind: FieldPart}}}, rg, false)
	dst := make([]Visit, 0, 10)
	sink := 0
	if a := testing.AllocsPerRun(1000, func() {
		sink += rg.Shard(&k) + hs.Shard(&k)
		dst = pp.Plan(dst[:0], nil, fields, 0)
		sink += int(pp.LastKey().N)
	}); a != 0 {
		t.Errorf("%v allocations per call, want 0", a)
	}
	if rg.Shard(&k) != 5 {
		t.Errorf("key 180 on shard %d, want 5", rg.Shard(&k))
	}
}

func randKeysOn(s Scheme, shard, n int) []Key {
	var ks []Key
	for v := uint64(0); len(ks) < n; v++ {
		if k := key1(v); s.Shard(&k) == shard {
			ks = append(ks, k)
		}
	}
	return ks
}
