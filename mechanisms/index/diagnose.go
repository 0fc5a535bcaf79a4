package index

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The indexes' diagnosis rule, hot_index_partition (docs/detection.md), on each index's
// figures.

// ruleRank places hot_index_partition among the rules the mechanisms register: last, after
// cache_stampede (100) and the split chain's monotonic_key (200).
const ruleRank = 300

// indexRefusedShare: an index whose hottest partition refused more than 1% of what it was
// asked pushes back on the table (or its readers) enough to name.
const indexRefusedShare = 0.01

func init() { diagnose.RegisterRule(ruleRank, "hot_index_partition", indexes) }

// indexes applies hot_index_partition to each global secondary index
// (docs/detection.md): one index partition takes more than diagnose.FairBar of the
// index's writes, and either refuses more than indexRefusedShare of them (its partition
// limit or its node's queue: an asynchronous index fails the table's write with it) or is
// hot in the busiest window against the index's median shard. The index's key gathers
// what the table's key spread (the write-sharding article's pattern 3: a table salted by
// device, an index keyed by device group and hour).
func indexes(v diagnose.Finding) {
	run := v.Run()
	loads := run.PeakLoads
	for i := range run.Indexes {
		x := &run.Indexes[i]
		if x.Shards < 2 || x.Share <= diagnose.FairBar(uint64(x.Shards)) {
			continue
		}
		asked := x.HottestRows + x.HottestFailures
		refused := metrics.Share(x.HottestFailures, asked)
		s := x.Hottest
		med := metrics.Median(loads[x.First : x.First+x.Shards])
		hot := s < len(loads) && loads[s] >= diagnose.ShardHotLoad && (med == 0 || loads[s] >= diagnose.SkewRatio*med)
		if refused <= indexRefusedShare && !hot {
			continue
		}
		v.Explain(s)
		v.Add(diagnose.Diagnosis{Kind: "hot_index_partition", Subject: "index " + x.Name,
			Message: fmt.Sprintf("index %s's partition %s takes %s of the index's writes, where each of its %d shards would take %s if they spread evenly; %s; in the busiest window (%s) it runs at %s of its node's cores while the index's median shard runs at %s: the index's key gathers on one partition what the table's key spread over many. Add a high-cardinality part to the index's key (a hashed bucket such as hash(device_id, 8): a query over the index then reads that many partitions), or give the index's partitions more capacity",
				x.Name, v.ShardName(s), units.Percent(x.Share, 1), x.Shards, units.Percent(1/float64(x.Shards), 1), refusedWords(x, refused), v.PeakAt(), units.Percent(loads[s], 1), units.Percent(med, 1)),
			Evidence: map[string]float64{"shard": float64(s), "index_shards": float64(x.Shards), "write_share": units.Round(x.Share, 4),
				"refused": float64(x.HottestFailures), "refused_share": units.Round(refused, 4), "shard_load": metrics.Util(loads[s]), "median_load": metrics.Util(med)}})
	}
}

// refusedWords says what index x's hottest partition refused, a share refused of what it
// was asked, and what that did to the requests that carried it.
func refusedWords(x *metrics.Index, refused float64) string {
	switch {
	case x.HottestFailures == 0:
		return "it refused none of them"
	case x.Async:
		return fmt.Sprintf("it refused %s of them (%s: its partition limit or its node's full queue), and each refusal failed the table's write that carried it, although the table's shards had room: an asynchronous index pushes back on the table", units.Percent(refused, 1), units.Count(x.HottestFailures))
	}
	return fmt.Sprintf("it refused %s of them (%s: its partition limit or its node's full queue), and each refusal failed the request that carried it", units.Percent(refused, 1), units.Count(x.HottestFailures))
}
