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

// rawTime is a time-ordered field whose value is the row time itself.
type rawTime struct{}

func (rawTime) Bounds(t int64) (lo, hi uint64) { return uint64(t), uint64(t) }

// TestRowsTimeRangeAndScatter: a scan of the last 2 hours of a raw time key, range-sharded
// at 1h and 2h, at row time 3h visits shards 1 and 2, which share the range's 7,200 rows
// (1 row/s) evenly; with limit 5,000 the newest shard, 2, is read whole (3,600) and shard
// 1 for the 1,400 left. A scatter-gather of the same table at 3h (10,800 rows since -history
// = 0) reads 2,700 rows on each of 4 shards, at most the limit on each.
func TestRowsTimeRangeAndScatter(t *testing.T) {
	const hour = int64(3600e9)
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 0}}}
	s := NewRange([]Key{{N: 1, P: [MaxParts]uint64{uint64(hour)}}, {N: 1, P: [MaxParts]uint64{uint64(2 * hour)}}})
	rows := func(limit int64) *Rows {
		return &Rows{Limit: limit, Sources: []RowSource{{
			Written: func(a, b int64) float64 { return float64(b-a) / 1e9 }, Share: []func(uint64) float64{nil}}}}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		limit int64
		want  map[int32]int64
	}{{0, map[int32]int64{1: 3600, 2: 3600}}, {5000, map[int32]int64{2: 3600, 1: 1400}}} {
		p, err := NewQueryPlanner(d, s, []PartQuery{{Mode: TimeRange, Span: 2 * hour, Bounds: rawTime{}}})
		if err != nil {
			t.Fatal(err)
		}
		p.SetRows(rows(c.limit))
		visits := p.Plan(nil, r, []uint64{0}, 3*hour)
		if len(visits) != len(c.want) {
			t.Fatalf("limit %d: visits %v, want shards %v", c.limit, visits, c.want)
		}
		for _, v := range visits {
			if c.want[v.Shard] != v.Rows || v.Partitions != 1 {
				t.Errorf("limit %d: shard %d read %d rows in %d partitions, want %d in 1", c.limit, v.Shard, v.Rows, v.Partitions, c.want[v.Shard])
			}
		}
		if c.limit > 0 && visits[0].Shard != 2 {
			t.Errorf("limit %d: visits %v, want the newest shard (2) first", c.limit, visits)
		}
	}
	sc := NewScatterPlanner(4)
	for _, c := range []struct{ limit, want int64 }{{0, 2700}, {1000, 1000}} {
		sc.SetRows(rows(c.limit))
		for _, v := range sc.Plan(nil, r, nil, 3*hour) {
			if v.Rows != c.want {
				t.Errorf("scatter, limit %d: shard %d read %d rows, want %d", c.limit, v.Shard, v.Rows, c.want)
			}
		}
	}
}
