package keyspace

import "math"

// Rows is the row model of a table as the scans see it: how many rows each partition holds
// and how many of them a scan reads. A partition holds the rows the write streams put in
// it: their expected number, from each stream's rate over the time the partition covers
// (from -History, when the table's existing rows begin, to the scan's row time) times the
// share of that stream's writes whose key parts have the partition's values. The model is
// a function of the schedules and the field distributions, so it keeps no state per key
// and costs nothing on the write path.
//
// A scan reads the rows of every partition it visits whose row time lies in the scan's
// time range (rows are clustered by time within a partition), each partition's count
// rounded to a whole number of rows. With Limit, it walks the partitions in key order,
// newest bucket first for a time range, and stops once it has read Limit rows: the
// partition that reaches the limit is read up to it, and the ones after it are not
// visited at all.
type Rows struct {
	// Sources are the write streams that fill the table.
	Sources []RowSource
	// History is how long before t = 0 the table's rows begin (table.history), >= 0.
	History int64
	// Limit is the most rows one scan reads; 0 means no limit.
	Limit int64
	// OnePerKey marks a query whose known parts name a unique row (an equality on a uuid
	// or time-ordered id): each of its partitions holds at most one matching row.
	OnePerKey bool
}

// RowSource is one write stream of the row model.
type RowSource struct {
	// Written returns the stream's expected writes with row times in [a, b), a < b; for
	// a < 0, the writes of the table's history.
	Written func(a, b int64) float64
	// Share gives, for each key part of the design (salt first when salted), the fraction
	// of the stream's writes whose part has value v; nil for a part that does not narrow
	// the rows (a time part, or one derived from a field another part already names).
	Share []func(v uint64) float64
}

// written returns the rows the sources wrote with row times in [a, b) ∩ [-History, ∞)
// whose key parts other than time have the values of k (the parts past n excluded).
func (m *Rows) written(k *Key, n int, a, b int64) float64 {
	a = max(a, -m.History)
	if b <= a {
		return 0
	}
	total := 0.0
	for i := range m.Sources {
		src := &m.Sources[i]
		w := src.Written(a, b)
		for j := 0; j < n && w > 0; j++ {
			if f := src.Share[j]; f != nil {
				w *= f(k.P[j])
			}
		}
		total += w
	}
	if m.OnePerKey {
		total = min(total, 1)
	}
	return total
}

// round is the whole number of rows an expected count stands for.
func roundRows(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	return int64(math.Round(x))
}

// ScanRows returns the rows a scan that visits every shard of n reads on each, with its
// time range [from, to) (from = math.MinInt64 for no range): the rows of the whole range,
// spread evenly over the shards, each shard stopping at the limit (a limit is pushed down to
// every shard of a scatter-gather, which cannot know which shard holds the first rows).
func (m *Rows) ScanRows(shards int, from, to int64) int64 {
	var none Key
	per := roundRows(m.written(&none, 0, from, to) / float64(max(shards, 1)))
	if m.Limit > 0 {
		per = min(per, m.Limit)
	}
	return per
}
