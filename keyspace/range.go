package keyspace

import (
	"fmt"
	"slices"
)

// SchemeRange gives each shard a range of keys, split at the quantiles of a sample.
const SchemeRange SchemeKind = "range"

func init() {
	registerScheme(SchemeRange, schemeDef{rank: 1, ordered: true,
		resolve: func(in SchemeInput, t *SchemeTable) SchemeOptions {
			if t.History <= 0 {
				in.Add("table.history", "must be positive with scheme = \"range\": the initial split points are the quantiles of the keys written during the history")
			}
			return nil
		},
		build: func(c SchemeConfig) (Scheme, error) {
			return NewRange(SplitsFromSample(c.Sample(), c.Shards)), nil
		}})
}

// Range is the range scheme: shard i owns the keys in [splits[i-1], splits[i]), the first
// shard everything below splits[0] and the last everything from splits[len-1] up. Keys
// compare as tuples, part by part.
type Range struct {
	splits []Key
}

// NewRange returns the range scheme with the given split points, which must be sorted; it
// has len(splits)+1 shards. Equal split points leave the shards between them empty. It
// panics on unsorted splits.
func NewRange(splits []Key) *Range {
	for i := 1; i < len(splits); i++ {
		if splits[i-1].Compare(&splits[i]) > 0 {
			panic(fmt.Sprintf("keyspace: NewRange: split %d is below split %d", i, i-1))
		}
	}
	return &Range{splits: slices.Clone(splits)}
}

// Shard returns the shard that owns k: the number of split points at or below k, found by
// binary search.
func (r *Range) Shard(k *Key) int {
	lo, hi := 0, len(r.splits)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r.splits[mid].Compare(k) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Span returns the first and last shard whose ranges hold keys in [lo, hi].
func (r *Range) Span(lo, hi *Key) (first, last int) {
	return r.Shard(lo), r.Shard(hi)
}

// Shards returns the number of shards.
func (r *Range) Shards() int { return len(r.splits) + 1 }

// Splits returns the split points. The slice must not be modified.
func (r *Range) Splits() []Key { return r.splits }

// SplitsFromSample returns the shards-1 split points that cut a sample of keys into equal
// parts: split i is the sample's i/shards quantile. The sample is sorted in place.
func SplitsFromSample(sample []Key, shards int) []Key {
	if shards < 1 {
		panic(fmt.Sprintf("keyspace: SplitsFromSample(%d shards)", shards))
	}
	slices.SortFunc(sample, func(a, b Key) int { return a.Compare(&b) })
	splits := make([]Key, 0, shards-1)
	for i := 1; i < shards; i++ {
		if len(sample) == 0 {
			splits = append(splits, Key{})
			continue
		}
		splits = append(splits, sample[i*len(sample)/shards])
	}
	return splits
}
