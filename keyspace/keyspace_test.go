package keyspace

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func randKey(r *rand.Rand) Key {
	var k Key
	k.N = uint8(1 + r.IntN(3))
	for i := uint8(0); i < k.N; i++ {
		k.P[i] = uint64(r.IntN(6)) // few values, so ties and equal prefixes are common
	}
	return k
}

// TestRangeAgainstLinearScan checks the binary search against the obviously right answer:
// the number of split points at or below the key, counted one by one.
func TestRangeAgainstLinearScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 500; trial++ {
		splits := make([]Key, r.IntN(40))
		for i := range splits {
			splits[i] = randKey(r)
		}
		slices.SortFunc(splits, func(a, b Key) int { return a.Compare(&b) })
		rg := NewRange(splits)
		for i := 0; i < 200; i++ {
			k := randKey(r)
			want := 0
			for _, s := range splits {
				if s.Compare(&k) <= 0 {
					want++
				}
			}
			if got := rg.Shard(&k); got != want {
				t.Fatalf("trial %d: Shard(%v) = %d, linear scan says %d (splits %v)", trial, k.Parts(), got, want, splits)
			}
		}
	}
}

// TestSplitsFromSample: splits of a uniform sample cut it into equal parts.
func TestSplitsFromSample(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	sample := make([]Key, 100_000)
	for i := range sample {
		sample[i] = Key{N: 1, P: [MaxParts]uint64{r.Uint64()}}
	}
	rg := NewRange(SplitsFromSample(sample, 10))
	counts := make([]int, 10)
	for i := 0; i < 100_000; i++ {
		k := Key{N: 1, P: [MaxParts]uint64{r.Uint64()}}
		counts[rg.Shard(&k)]++
	}
	// Each shard should get 10% of fresh uniform keys; the splits themselves are estimated
	// from 1e5 samples, so allow 1 percentage point.
	for s, c := range counts {
		if math.Abs(float64(c)/100_000-0.1) > 0.01 {
			t.Errorf("shard %d gets %.4f of uniform keys, want 0.1", s, float64(c)/100_000)
		}
	}
}

// TestRandomSaltIsUniform: a random salt spreads writes evenly over its 16 buckets.
// Chi-square over 1.6e6 writes with 15 degrees of freedom; the 0.999 quantile is 37.70.
func TestRandomSaltIsUniform(t *testing.T) {
	d := &Design{Parts: []Part{{Kind: FieldPart}}, Salt: 16, SaltMode: SaltRandom}
	r := rand.New(rand.NewPCG(9, 9))
	var counts [16]float64
	var rr uint64
	const n = 1_600_000
	for i := 0; i < n; i++ {
		counts[d.WriteSalt(r, []uint64{uint64(i)}, &rr)]++
	}
	chi := 0.0
	for _, c := range counts {
		chi += (c - n/16) * (c - n/16) / (n / 16)
	}
	if chi > 37.70 {
		t.Errorf("chi-square %.1f over 16 salt buckets exceeds 37.70 (p = 0.001)", chi)
	}
	// Round-robin cycles exactly; hash salts are a function of the field.
	d.SaltMode = SaltRoundRobin
	for i := uint64(0); i < 64; i++ {
		if got := d.WriteSalt(r, []uint64{0}, &rr); got != i%16 {
			t.Fatalf("round-robin salt %d = %d, want %d", i, got, i%16)
		}
	}
	d.SaltMode = SaltHash
	if a, b := d.WriteSalt(r, []uint64{42}, &rr), d.WriteSalt(r, []uint64{42}, &rr); a != b {
		t.Errorf("hash salt of the same field differs: %d, %d", a, b)
	}
}

func TestDirectoryErrors(t *testing.T) {
	for _, tc := range []struct {
		entries []DirEntry
		want    string
	}{
		{[]DirEntry{{Part: 0, Value: 1, Shards: []int{4}}}, "no shard 4"},
		{[]DirEntry{{Part: 0, Value: 1}}, "names no shard"},
		{[]DirEntry{{Part: 0, Value: 1, Shards: []int{0, 1}}, {Part: 0, Value: 2, Shards: []int{2, 3}}}, "leaving none"},
	} {
		_, err := NewDirectory(4, tc.entries)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDirectory(%v) = %v, want an error containing %q", tc.entries, err, tc.want)
		}
	}
}

// TestRingBalance: with 64 vnodes a shard's share of uniform keys stays within 35% of
// 1/n (consistent hashing's imbalance shrinks like 1/sqrt(vnodes)), and every key maps to
// a valid shard.
func TestRingBalance(t *testing.T) {
	const n = 10
	rg := NewRing(n, 64)
	counts := make([]int, n)
	for i := uint64(0); i < 200_000; i++ {
		k := Key{N: 1, P: [MaxParts]uint64{i}}
		counts[rg.Shard(&k)]++
	}
	for s, c := range counts {
		if share := float64(c) / 200_000; math.Abs(share-0.1) > 0.035 {
			t.Errorf("shard %d gets %.3f of the keys, want 0.1 +- 0.035", s, share)
		}
	}
}

// TestMaxPartitionsBuckets: [t-90m, t) overlaps up to 3 hourly buckets, [t-24h, t) up to
// 25 (found by review: the bound said 2 and 25).
func TestMaxPartitionsBuckets(t *testing.T) {
	const h = int64(3600e9)
	for _, tc := range []struct {
		span int64
		want float64
	}{{90 * 60e9, 3}, {24 * h, 25}, {h, 2}, {1, 1}} {
		q := []PartQuery{{Mode: Enumerate, Count: 5}, {Mode: BucketRange, Span: tc.span, Width: h}}
		if got := MaxPartitions(q); got != 5*tc.want {
			t.Errorf("span %v: MaxPartitions = %v, want 5 x %v", tc.span, got, tc.want)
		}
		// Brute force over query times on a minute grid: no time visits more.
		worst := int64(0)
		for tm := int64(0); tm < 2*h; tm += 60e9 + 1 {
			n := floorDiv(tm-1, h) - floorDiv(tm-tc.span, h) + 1
			worst = max(worst, n)
		}
		if float64(worst) > tc.want {
			t.Errorf("span %v: a query visits %d buckets, above the bound %v", tc.span, worst, tc.want)
		}
	}
}

// TestTimeBucketsSortInTimeOrder: history buckets are negative; their key values must still
// sort below the present's (found by review of iot-timeseries: new writes sorted first), and
// hour buckets follow the wall clock of the start, not t = 0.
func TestTimeBucketsSortInTimeOrder(t *testing.T) {
	const h = int64(3600e9)
	d := &Design{Parts: []Part{{Kind: TimeBucketPart, Width: h}}, Clock: 9*h + 20*60e9} // start 09:20
	prev := Key{}
	for i, tm := range []int64{-30 * 24 * h, -h - 1, -1, 0, 40*60e9 - 1, 40 * 60e9, 5 * h} {
		k := d.Key(nil, tm, 0)
		if i > 0 && k.Compare(&prev) < 0 {
			t.Errorf("bucket of t=%d sorts below the bucket of an earlier time", tm)
		}
		prev = k
	}
	// 09:20 + 39:59.999 is still 09:xx; 09:20 + 40:00 is 10:00, a new bucket.
	a, b := d.Key(nil, 40*60e9-1, 0), d.Key(nil, 40*60e9, 0)
	if b.P[0] != a.P[0]+1 || d.Key(nil, 0, 0).P[0] != a.P[0] {
		t.Errorf("hour buckets do not follow the clock: %x %x %x", d.Key(nil, 0, 0).P[0], a.P[0], b.P[0])
	}
	if Bucket(-1)+1 != Bucket(0) {
		t.Errorf("bucket values are not consecutive across 0")
	}
}
