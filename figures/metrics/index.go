package metrics

import (
	"strconv"

	"github.com/shardsim/shardsim/sim"
)

// Index is a global secondary index's figures (docs/mitigations.md, "Global secondary
// indexes"): where its shards are among the run's (ids First to First+Shards-1), and how
// its writes spread over them.
type Index struct {
	IndexLayout
	// Rows are the index entries written (the rows its shards gained), Failures the
	// subrequests its shards refused after the warmup (throttled by the index's partition
	// limit, rejected by a full queue): each one failed the request that carried it, a
	// table write whose index pushed back, or a read over the index.
	Rows, Failures int64
	// Hottest is the run's id of the index shard asked the most (its rows and refusals);
	// HottestRows and HottestFailures are its own, and Share its part of what the index was
	// asked (0 when nothing was).
	Hottest                      int
	HottestRows, HottestFailures int64
	Share                        float64
}

// IndexesOf returns the run's indexes from its result and its shards' figures; nil when
// it has none.
func IndexesOf(r *sim.Result, shards []Shard) []Index {
	var out []Index
	for _, l := range IndexLayouts(r) {
		x := Index{IndexLayout: l, Hottest: l.First}
		for s := l.First; s < l.First+l.Shards && s < len(shards); s++ {
			sh := &shards[s]
			x.Rows += sh.Rows
			x.Failures += sh.Failures
			if sh.Rows+sh.Failures > x.HottestRows+x.HottestFailures {
				x.Hottest, x.HottestRows, x.HottestFailures = s, sh.Rows, sh.Failures
			}
		}
		if asked := x.Rows + x.Failures; asked > 0 {
			x.Share = float64(x.HottestRows+x.HottestFailures) / float64(asked)
		}
		out = append(out, x)
	}
	return out
}

// IndexOf returns the layout of the index that shard id belongs to, or nil for a shard of
// the table.
func IndexOf(indexes []IndexLayout, id int) *IndexLayout {
	for i := range indexes {
		if x := &indexes[i]; id >= x.First && id < x.First+x.Shards {
			return x
		}
	}
	return nil
}

// ShardName names shard id for a reader: its number for a shard of the table, and
// INDEX/K for shard K of an index (by_status/3), whose id follows the table's shards.
// indexes are the run's (IndexLayouts).
func ShardName(indexes []IndexLayout, id int) string {
	if x := IndexOf(indexes, id); x != nil {
		return x.Name + "/" + strconv.Itoa(id-x.First)
	}
	return strconv.Itoa(id)
}
