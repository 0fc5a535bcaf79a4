package keyspace

import (
	"math/rand/v2"
	"testing"
)

// TestRowsNewestFirst plans a scan of the last 3 hours over (region, hour(ts)), 2 regions
// (shares 3/4 and 1/4) on 4 hash shards, against a table written at a constant 1 row/s
// since 10 hours before the start. At row time 5h (on the hour) the scan covers the
// buckets of hours 2, 3 and 4, each holding 3600 rows: 2,700 of region 0 and 900 of region
// 1. Without a limit it reads all 6 partitions and 10,800 rows; with limit 4,000 it reads
// region 0's hour 4 (2,700 rows) and then hour 3 (1,300 of its 2,700), newest first: 2
// partitions. The visits are checked against a plain sum over the partitions.
func TestRowsNewestFirst(t *testing.T) {
	const hour = int64(3600e9)
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 0}, {Kind: TimeBucketPart, Field: 1, Width: hour}}}
	s := NewModulo(4)
	rows := func(limit int64) *Rows {
		return &Rows{History: 10 * hour, Limit: limit, Sources: []RowSource{{
			Written: func(a, b int64) float64 { return float64(b-a) / 1e9 },
			Share:   []func(uint64) float64{func(v uint64) float64 { return []float64{0.75, 0.25}[v] }, nil},
		}}}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		limit       int64
		parts, rows int64
	}{{0, 6, 10_800}, {4_000, 2, 4_000}} {
		p, err := NewQueryPlanner(d, s, []PartQuery{{Mode: Enumerate, Count: 2}, {Mode: BucketRange, Span: 3 * hour, Width: hour}})
		if err != nil {
			t.Fatal(err)
		}
		p.SetRows(rows(c.limit))
		visits := p.Plan(nil, r, []uint64{0, 0}, 5*hour)
		var parts, read int64
		for _, v := range visits {
			parts += int64(v.Partitions)
			read += v.Rows
		}
		if parts != c.parts || read != c.rows {
			t.Errorf("limit %d: %d partitions and %d rows, want %d and %d (%v)", c.limit, parts, read, c.parts, c.rows, visits)
		}
		if c.limit > 0 {
			// The slow way: region 0's hour 4, then hour 3, each on the shard its key hashes to.
			k4 := Key{N: 2, P: [MaxParts]uint64{0, Bucket(4)}}
			k3 := Key{N: 2, P: [MaxParts]uint64{0, Bucket(3)}}
			want := map[int32]int64{}
			want[int32(s.Shard(&k4))] += 2_700
			want[int32(s.Shard(&k3))] += 1_300
			for _, v := range visits {
				if want[v.Shard] != v.Rows {
					t.Errorf("limit %d: shard %d read %d rows, want %d", c.limit, v.Shard, v.Rows, want[v.Shard])
				}
			}
		}
	}
}
