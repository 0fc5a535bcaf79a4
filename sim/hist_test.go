package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistLayoutMatchesLibrary checks the engine's counting against the library's own
// RecordValue, for both layouts the engine uses: 200,000 values (seed 7) spread
// log-uniformly over [1, histMaxMicros], plus the ends and every power of two and its
// neighbours, must give identical counts arrays, totals and percentiles.
func TestHistLayoutMatchesLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	values := []int64{1, 2, 3, histMaxMicros - 1, histMaxMicros}
	for b := 1; b < 50; b++ {
		values = append(values, 1<<b-1, 1<<b, 1<<b+1)
	}
	for range 200_000 {
		// 10^U(0,15), at least 1 and at most the maximum
		v := int64(1)
		for e := r.IntN(16); e > 0; e-- {
			v *= 10
		}
		v = min(max(1, v+r.Int64N(v*9+1)), histMaxMicros)
		values = append(values, v)
	}
	for _, digits := range []int{histDigits, windowHistDigits} {
		l := newHistLayout(digits, histMaxMicros)
		want := hdrhistogram.New(1, histMaxMicros, digits)
		counts := make([]int64, l.countsN)
		for _, v := range values {
			if err := want.RecordValue(v); err != nil {
				t.Fatal(err)
			}
			counts[l.index(v)]++
		}
		got := l.histogram(counts)
		if !slices.Equal(got.Export().Counts, want.Export().Counts) {
			t.Fatalf("digits %d: the counts differ from RecordValue's", digits)
		}
		if got.TotalCount() != want.TotalCount() || got.Max() != want.Max() || got.Min() != want.Min() {
			t.Fatalf("digits %d: total/min/max %d/%d/%d, library %d/%d/%d", digits,
				got.TotalCount(), got.Min(), got.Max(), want.TotalCount(), want.Min(), want.Max())
		}
		for _, q := range []float64{50, 90, 99, 99.9, 100} {
			if a, b := got.ValueAtQuantile(q), want.ValueAtQuantile(q); a != b {
				t.Fatalf("digits %d: p%v %d, library %d", digits, q, a, b)
			}
		}
	}
	if l := newHistLayout(windowHistDigits, histMaxMicros); l.histogram(nil) != nil {
		t.Fatal("no counts must give no histogram")
	}
}

// TestShardIndex: the shard histograms' constant layout is the 1-digit layout, and
// shardIndex agrees with its index over every power of two and its neighbours up to the
// largest value, and 100,000 random values.
func TestShardIndex(t *testing.T) {
	l := newHistLayout(1, shardMaxMicros)
	if l.halfMag != shardHalfMag || l.mask != shardMask || l.countsN != shardCounts {
		t.Fatalf("1-digit layout: halfMag %d, mask %d, %d counts; the constants say %d, %d, %d", l.halfMag, l.mask, l.countsN, shardHalfMag, shardMask, shardCounts)
	}
	check := func(v int64) {
		if got, want := shardIndex(v), l.index(v); got != want {
			t.Fatalf("shardIndex(%d) = %d, want %d", v, got, want)
		}
	}
	for p := int64(1); p > 0 && p <= shardMaxMicros; p <<= 1 {
		check(p)
		check(p + 1)
		check(max(p-1, 1))
	}
	check(shardMaxMicros)
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		check(1 + r.Int64N(shardMaxMicros))
	}
}
