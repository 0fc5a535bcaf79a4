package diagnose

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// written is where one write stream's rows landed: per shard (all streams' rows, for a
// result that did not count them by stream), the most written shard, how many shards got
// any, whether a hot one did, and the largest share of its writes one partition is sure
// to have.
type written struct {
	hp        *metrics.HotPartitions
	rows      []int64
	total     int64
	top       int
	shards    int
	hotOnes   bool
	topShare  float64
	rowShare  float64
	allShards int
}

// writtenOf gathers where hp's stream wrote its rows.
func (f *finding) writtenOf(hp *metrics.HotPartitions) *written {
	n := len(f.Run.Shards)
	w := &written{hp: hp, rows: make([]int64, n), allShards: n}
	if st := f.stream(hp.Stream); st != nil && len(st.ShardRows) == n {
		copy(w.rows, st.ShardRows)
	} else {
		for s, sh := range f.Run.Shards {
			w.rows[s] = sh.Rows
		}
	}
	for s, rows := range w.rows {
		w.total += rows
		if rows > w.rows[w.top] {
			w.top = s
		}
		if rows > 0 {
			w.shards++
			w.hotOnes = w.hotOnes || f.hot(s)
		}
	}
	for _, p := range hp.Partitions {
		w.topShare = max(w.topShare, metrics.Share(p.Writes-p.Error, hp.Counted)) // what the sketch guarantees
	}
	w.rowShare = metrics.Share(w.rows[w.top], w.total)
	return w
}

// writes applies low_cardinality and monotonic_key to the rows each write stream added
// to each shard and the partitions it wrote.
func (f *finding) writes() {
	for i := range f.HotPartitions {
		hp := &f.HotPartitions[i]
		if hp.PartitionsWritten <= 0 || f.locked[hp.Stream] {
			continue
		}
		if w := f.writtenOf(hp); w.total > 0 {
			f.judgeWrites(w)
		}
	}
}

// judgeWrites applies the rules of where a stream's rows landed. Under a scheme that keeps
// the keys' order, a salted key is judged per salt bucket, each a range of its own.
func (f *finding) judgeWrites(w *written) {
	ordered := f.Variant.Scheme.Ordered()
	buckets := max(1, f.Variant.Salt)
	pw := w.hp.PartitionsWritten
	many := pw >= int64(monotonicPartitionsPerShard*w.allShards) && w.topShare <= hotKeyShare
	switch {
	case pw < int64(w.allShards) && w.shards < w.allShards && w.hotOnes:
		f.lowCardinality(w)
	case ordered && many && w.rowShare > monotonicRowShare && w.allShards > 1:
		f.monotonic(w)
	case ordered && buckets > 1 && 2*buckets <= w.allShards && many:
		f.saltedMonotonic(w, buckets)
	}
}

// lowCardinality: few partitions cost something only when one of the shards they land on
// runs hot; a few salt buckets of a counter on shards with cores to spare are a design.
func (f *finding) lowCardinality(w *written) {
	for s, n := range w.rows {
		if n > 0 {
			f.explained[s] = true
		}
	}
	hp, shards := w.hp, w.allShards
	pw := hp.PartitionsWritten
	f.add(Diagnosis{Kind: "low_cardinality", Subject: hp.Stream,
		Message: fmt.Sprintf("%s wrote only %s distinct %s over %d shards, so %s took every row written while %d got none: add a high-cardinality component to the key (an id, or a hashed bucket)",
			hp.Stream, metrics.About(pw, hp.Counted), metrics.Noun(pw, "partition"), shards, metrics.Plural(int64(w.shards), "shard"), shards-w.shards),
		Evidence: map[string]float64{"partitions_written": float64(pw), "shards": float64(shards), "shards_written": float64(w.shards), "idle_shards": float64(shards - w.shards)}})
}

// monotonic: under a scheme that keeps the keys' order, the stream's new rows piling onto
// one shard while no partition stands out is a key that grows with time.
func (f *finding) monotonic(w *written) {
	hp, top := w.hp, w.top
	f.explained[top] = true
	where := "shard " + f.shardName(top)
	if top == w.allShards-1 {
		where = fmt.Sprintf("shard %s, the highest of the range,", f.shardName(top))
	}
	f.add(Diagnosis{Kind: MonotonicKey, Subject: hp.Stream,
		Message: fmt.Sprintf("%s wrote %s distinct partitions among %s sampled writes, none more than %s of its writes, yet %s took %s of the rows it wrote: its key grows with time, so every new key lands at the end; %s ran at %s in the busiest window (%s) while the median shard ran at %s: lead the key with another field (a composite key) or a salt bucket",
			hp.Stream, metrics.About(hp.PartitionsWritten, hp.Counted), units.Count(hp.Counted), pctAtLeast(w.topShare), where, units.Percent(w.rowShare, 1), "shard "+f.shardName(top), units.Percent(f.loads[top], 1), f.peakAt, units.Percent(f.med, 1)),
		Evidence: map[string]float64{"partitions_written": float64(hp.PartitionsWritten), "shard": float64(top), "row_share": w.rowShare,
			"top_partition_share": w.topShare, "shard_load": metrics.Util(f.loads[top]), "median_load": metrics.Util(f.med)}})
}

// saltedMonotonic: salted, the key still grows with time in each bucket: the new rows
// pile onto the last range of each, as many shards as buckets. Said when those shards
// take most of the rows and one of them runs hot.
func (f *finding) saltedMonotonic(w *written, buckets int) {
	order := make([]int, w.allShards)
	for s := range order {
		order[s] = s
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w.rows[b], w.rows[a]) })
	var topRows int64
	hotTop := -1
	for _, s := range order[:buckets] {
		topRows += w.rows[s]
		if f.hot(s) && (hotTop < 0 || f.loads[s] > f.loads[hotTop]) {
			hotTop = s
		}
	}
	bucketShare := metrics.Share(topRows, w.total)
	if bucketShare <= monotonicRowShare || hotTop < 0 {
		return
	}
	for _, s := range order[:buckets] {
		f.explained[s] = true
	}
	hp := w.hp
	f.add(Diagnosis{Kind: MonotonicKey, Subject: hp.Stream,
		Message: fmt.Sprintf("%s wrote %s distinct partitions among %s sampled writes, none more than %s of its writes, yet %d shards, one per salt bucket, took %s of the rows it wrote: within each bucket the key grows with time, so every new key lands at the end of its bucket's range; shard %s ran at %s in the busiest window (%s) while the median shard ran at %s: more buckets spread the new keys over more shards (a read that cannot derive its bucket visits them all), or lead the key with another field (a composite key)",
			hp.Stream, metrics.About(hp.PartitionsWritten, hp.Counted), units.Count(hp.Counted), pctAtLeast(w.topShare), buckets, units.Percent(bucketShare, 1), f.shardName(hotTop), units.Percent(f.loads[hotTop], 1), f.peakAt, units.Percent(f.med, 1)),
		Evidence: map[string]float64{"partitions_written": float64(hp.PartitionsWritten), "buckets": float64(buckets), "shard": float64(hotTop), "row_share": bucketShare,
			"top_partition_share": w.topShare, "shard_load": metrics.Util(f.loads[hotTop]), "median_load": metrics.Util(f.med)}})
}
