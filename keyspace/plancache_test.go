package keyspace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPlanCacheMatchesFreshPlans checks the query planner's cache of its last plan against
// a planner that has never planned (so cannot reuse anything): over hash, range and a range
// splitter that splits between plans, for queries that enumerate a part (250 values, over
// three of the range's shards, so a split moves some of them), know a part (drawn from a
// few values, so plans repeat) and range over time buckets, 3,000 plans each (PCG seed 8,
// 9) give the same visits in the same order. A cache that ignored the splits fails it.
func TestPlanCacheMatchesFreshPlans(t *testing.T) {
	const hour = int64(3600e9)
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 0}, {Kind: FieldPart, Field: 1}, {Kind: TimeBucketPart, Field: 2, Width: hour}}}
	queries := [][]PartQuery{
		{{Mode: Enumerate, Count: 250}, {Mode: Enumerate, Count: 4}, {Mode: Known}},
		{{Mode: Known}, {Mode: Enumerate, Count: 50}, {Mode: Known}},
		{{Mode: Enumerate, Count: 6}, {Mode: Known}, {Mode: BucketRange, Span: 5 * hour, Width: hour}},
	}
	r := rand.New(rand.NewPCG(8, 9))
	for _, mk := range []struct {
		name   string
		scheme func() Scheme
	}{
		{"hash", func() Scheme { return NewModulo(12) }},
		{"range", func() Scheme { return hundreds() }},
		{"splitter", func() Scheme { return NewSplitter(hundreds(), 12) }},
	} {
		for qi, q := range queries {
			s := mk.scheme()
			cached, err := NewQueryPlanner(d, s, q)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []Visit
			for i := range 3000 {
				fields := []uint64{uint64(r.IntN(3)), uint64(r.IntN(2)), 0}
				rowTime := int64(r.IntN(3)) * hour / 2 // time buckets repeat too
				if sp, ok := s.(*Splitter); ok && i%500 == 499 {
					sp.Split(r.IntN(sp.Live()), keyRange(0, 400))
				}
				fresh, err := NewQueryPlanner(d, s, q)
				if err != nil {
					t.Fatal(err)
				}
				got = cached.Plan(got[:0], r, fields, rowTime)
				want = fresh.Plan(want[:0], r, fields, rowTime)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, query %d, plan %d: cached %v, fresh %v", mk.name, qi, i, got, want)
				}
			}
			if sp, ok := s.(*Splitter); ok && sp.Live() == 4 {
				t.Fatalf("%s: no split was made, so the test did not cover a plan after one", mk.name)
			}
		}
	}
}

// BenchmarkQueryPlan1000 plans a scan of 1,000 partitions (an unconstrained part of 1,000
// values) over 12 hash shards: the first plan routes every partition, the rest reuse it.
func BenchmarkQueryPlan1000(b *testing.B) {
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 0}}}
	p, err := NewQueryPlanner(d, NewModulo(12), []PartQuery{{Mode: Enumerate, Count: 1000}})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var dst []Visit
	fields := []uint64{0}
	b.ReportAllocs()
	for b.Loop() {
		dst = p.Plan(dst[:0], r, fields, 0)
	}
}
