package detect

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/workload"
)

// zipfStream draws n ids from a scrambled Zipf law (s = 0.99 over a million ids, seed 7)
// and returns them with their exact counts.
func zipfStream(n int) ([]uint64, map[uint64]int64) {
	z := workload.NewZipf(1_000_000, 0.99, true)
	r := rand.New(rand.NewPCG(7, 0))
	ids := make([]uint64, n)
	exact := map[uint64]int64{}
	for i := range ids {
		ids[i] = z.Next(r, 0)
		exact[ids[i]]++
	}
	return ids, exact
}

// On 500,000 draws of a scrambled Zipf(0.99) law over 10^6 ids (seed 7), a sketch of 256
// counters must find the true top 10, each with a share within 1 percentage point of its
// true share, and every counter must bracket its id's true count. The capacity matters:
// a counter's error is at most draws/capacity, and only ids with a share above
// 1/capacity are sure to be kept. The 10th most popular id here has 0.7% of the draws, so
// 80 counters (8·TopK) miss some of the top 10 on this heavy tail; 160 is the least that
// passed, 256 leaves a margin.
func TestSpaceSavingZipfTop10(t *testing.T) {
	const draws, capacity = 500_000, 400
	ids, exact := zipfStream(draws)
	s := NewSpaceSaving(capacity)
	payload := make([]uint64, capacity) // what a caller keeps per slot
	for _, id := range ids {
		slot, fresh := s.Add(id)
		if fresh {
			payload[slot] = id
		}
		if payload[slot] != id {
			t.Fatalf("slot %d holds payload %d, want %d", slot, payload[slot], id)
		}
	}
	if s.Total() != draws {
		t.Fatalf("Total %d, want %d", s.Total(), draws)
	}
	type kc struct {
		id uint64
		n  int64
	}
	var truth []kc
	for id, n := range exact {
		truth = append(truth, kc{id, n})
	}
	slices.SortFunc(truth, func(a, b kc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	top := s.Top(10)
	found := map[uint64]Counter{}
	for _, c := range top {
		found[c.ID] = c
	}
	for _, tr := range truth[:10] {
		c, ok := found[tr.id]
		if !ok {
			t.Errorf("true top-10 id %d (%d times) missing from the sketch's top 10", tr.id, tr.n)
			continue
		}
		got, want := float64(c.Count)/draws, float64(tr.n)/draws
		if math.Abs(got-want) > 0.01 {
			t.Errorf("id %d: share %.4f, true %.4f", tr.id, got, want)
		}
	}
	for _, c := range s.Top(0) {
		if n := exact[c.ID]; c.Count-c.Error > n || n > c.Count {
			t.Errorf("id %d: count %d error %d, true %d", c.ID, c.Count, c.Error, n)
		}
	}
	for i := 1; i < len(top); i++ {
		if top[i].Count > top[i-1].Count {
			t.Fatalf("Top not sorted by count: %v", top)
		}
	}
}

// An adversarial stream of all-distinct ids keeps evicting the minimum; the guarantee and
// the index must survive it.
func TestSpaceSavingEvictionChurn(t *testing.T) {
	s := NewSpaceSaving(16)
	exact := map[uint64]int64{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100_000; i++ {
		id := r.Uint64N(64)
		if i%3 == 0 {
			id = uint64(1000 + i) // never seen again
		}
		exact[id]++
		s.Add(id)
	}
	if s.Len() != 16 {
		t.Fatalf("Len %d", s.Len())
	}
	seen := map[uint64]bool{}
	var sum int64
	for _, c := range s.Top(0) {
		if seen[c.ID] {
			t.Fatalf("id %d monitored twice", c.ID)
		}
		seen[c.ID] = true
		sum += c.Count
		if n := exact[c.ID]; c.Count-c.Error > n || n > c.Count {
			t.Errorf("id %d: count %d error %d, true %d", c.ID, c.Count, c.Error, n)
		}
	}
	if sum != s.Total() { // Space-Saving's counts always sum to the stream's length
		t.Errorf("counts sum to %d, total %d", sum, s.Total())
	}
}

func TestKeyStats(t *testing.T) {
	k := NewKeyStats(3)
	for i, id := range []uint64{5, 9, 5, 7, 11, 9, 5} {
		slot, fresh, ok := k.Add(id, float64(i))
		if id == 11 {
			if ok || slot != -1 {
				t.Errorf("a fourth id was tracked in slot %d", slot)
			}
			continue
		}
		if !ok || fresh != (i == 0 || i == 1 || i == 3) {
			t.Errorf("Add(%d) = %d %v %v", id, slot, fresh, ok)
		}
	}
	if k.Len() != 3 || k.Dropped() != 1 {
		t.Fatalf("Len %d Dropped %d", k.Len(), k.Dropped())
	}
	want := map[uint64][2]float64{5: {3, 0 + 2 + 6}, 9: {2, 1 + 5}, 7: {1, 3}}
	k.Each(func(id uint64, n int64, sum float64, slot int) {
		if w := want[id]; float64(n) != w[0] || sum != w[1] {
			t.Errorf("id %d: %d values summing to %v, want %v", id, n, sum, w)
		}
		if s, ok := k.Lookup(id); !ok || s != slot {
			t.Errorf("Lookup(%d) = %d %v, want slot %d", id, s, ok, slot)
		}
	})
	if _, ok := k.Lookup(11); ok {
		t.Error("untracked id found")
	}
}

// KMV is exact below k, and within 10% on 10^5 distinct values with k = 1024 (its relative
// standard error is about 3.1%; the seedless hash makes the result fixed: 3 sigma).
func TestDistinct(t *testing.T) {
	d := NewDistinct(1024)
	for i := uint64(0); i < 1000; i++ {
		d.Add(Hash64(i))
		d.Add(Hash64(i)) // duplicates do not count
	}
	if !d.Exact() || d.Estimate() != 1000 {
		t.Fatalf("below k: estimate %v (exact %v), want exactly 1000", d.Estimate(), d.Exact())
	}
	for i := uint64(1000); i < 100_000; i++ {
		d.Add(Hash64(i))
		if i%7 == 0 {
			d.Add(Hash64(i / 2))
		}
	}
	if e := d.Estimate(); d.Exact() || math.Abs(e-1e5)/1e5 > 0.10 {
		t.Errorf("estimate %.0f of 100,000 distinct, want within 10%%", e)
	}
}

func TestGini(t *testing.T) {
	if g := Gini([]float64{0.3, 0.3, 0.3, 0.3}); g != 0 {
		t.Errorf("equal loads: %v, want 0", g)
	}
	if g := Gini([]float64{0, 0, 0}); g != 0 {
		t.Errorf("all-zero loads: %v, want 0", g)
	}
	if g := Gini(nil); g != 0 {
		t.Errorf("no loads: %v", g)
	}
	for _, n := range []int{1, 2, 4, 12, 100} {
		xs := make([]float64, n)
		xs[n/2] = 0.9
		if g, want := Gini(xs), 1-1/float64(n); math.Abs(g-want) > 1e-15 {
			t.Errorf("one of %d takes all: %v, want %v", n, g, want)
		}
	}
	// The definition by pairs, on a small uneven example.
	xs := []float64{1, 2, 3, 10}
	var pairs, sum float64
	for _, a := range xs {
		sum += a
		for _, b := range xs {
			pairs += math.Abs(a - b)
		}
	}
	if g, want := Gini(xs), pairs/(2*float64(len(xs))*sum); math.Abs(g-want) > 1e-12 {
		t.Errorf("Gini %v, pairwise definition %v", g, want)
	}
}

func TestMedianPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12}
	if m := Median(xs); m != 6.5 {
		t.Errorf("median %v", m)
	}
	for p, want := range map[float64]float64{0.5: 6, 0.95: 12, 0.9: 11, 0.25: 3, 0: 1, 1: 12} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v (nearest rank)", p, got, want)
		}
	}
	if xs[0] != 5 {
		t.Error("input sorted in place")
	}
	if Percentile(nil, 0.5) != 0 || Median(nil) != 0 {
		t.Error("empty input")
	}
}

// Add allocates nothing once the structures are built, full or not.
func TestAddAllocatesNothing(t *testing.T) {
	s := NewSpaceSaving(64)
	k := NewKeyStats(64)
	d := NewDistinct(64)
	var i uint64
	if a := testing.AllocsPerRun(10_000, func() {
		i++
		s.Add(i % 200)
		k.Add(i%200, 1.5)
		d.Add(Hash64(i))
	}); a != 0 {
		t.Errorf("%v allocations per Add", a)
	}
}

func BenchmarkSpaceSavingAdd(b *testing.B) {
	ids, _ := zipfStream(1 << 16)
	s := NewSpaceSaving(80)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Add(ids[i&(1<<16-1)])
	}
}

// TestSpaceSavingSmall drives sketches of capacity 1 to 4 with every sequence of 8 ids
// from {0, 1, 2} (6,561 sequences each) and checks the Space-Saving invariants after each
// Add against the exact counts: the monitored counts sum to the total, every monitored
// id's Count - Error <= true count <= Count, and an id seen more than total/capacity
// times is monitored. (Found necessary by review: the stream summary needs one bucket more
// than the capacity.)
func TestSpaceSavingSmall(t *testing.T) {
	for capacity := 1; capacity <= 4; capacity++ {
		for seq := 0; seq < 6561; seq++ {
			s := NewSpaceSaving(capacity)
			truth := map[uint64]int64{}
			x := seq
			for i := 0; i < 8; i++ {
				id := uint64(x % 3)
				x /= 3
				s.Add(id)
				truth[id]++
				var sum int64
				seen := map[uint64]bool{}
				for _, c := range s.Top(0) {
					sum += c.Count
					seen[c.ID] = true
					if tr := truth[c.ID]; c.Count-c.Error > tr || tr > c.Count {
						t.Fatalf("capacity %d, seq %d, step %d: id %d count %d error %d, true %d", capacity, seq, i, c.ID, c.Count, c.Error, tr)
					}
				}
				if sum != s.Total() {
					t.Fatalf("capacity %d, seq %d, step %d: counts sum to %d, total %d", capacity, seq, i, sum, s.Total())
				}
				for id, tr := range truth {
					if tr*int64(capacity) > s.Total() && !seen[id] {
						t.Fatalf("capacity %d, seq %d, step %d: id %d seen %d of %d times is not monitored", capacity, seq, i, id, tr, s.Total())
					}
				}
			}
		}
	}
}
