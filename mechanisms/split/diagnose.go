package split

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Automatic splits' diagnosis rule, monotonic_key through a chain of splits
// (docs/detection.md): the splits show a key that grows with time.

// ruleRank places the split chain among the rules the mechanisms register: after
// cache_stampede (100), before hot_index_partition (300).
const ruleRank = 200

// splitChainLength is how many splits in a row, each of the shard the previous one created,
// show that automatic splits are chasing a key that grows with time.
const splitChainLength = 3

func init() { diagnose.RegisterRule(ruleRank, "monotonic_key (split chain)", splitChain) }

// splitChain applies monotonic_key to the splits automatic splitting made: each split
// hands the upper half of the hot shard's keys, and with them every new key, to the new
// shard, which then splits in turn. It explains every shard.
func splitChain(v diagnose.Finding) {
	longest, first := metrics.SplitChain(v.Result())
	if longest < splitChainLength {
		return
	}
	run := v.Run()
	loads, med := run.PeakLoads, v.Median()
	hot := 0
	for s, l := range loads {
		if l > loads[hot] {
			hot = s
		}
	}
	writer := ""
	for i := range run.Streams {
		if run.Streams[i].Op == sim.Write {
			writer = run.Streams[i].Name
			break
		}
	}
	for s := range loads {
		v.Explain(s)
	}
	v.Add(diagnose.Diagnosis{Kind: diagnose.MonotonicKey, Subject: writer,
		Message: fmt.Sprintf("%d splits in a row, from shard %s on, each of the shard the previous split created: every split hands the newest keys, and with them all of the writes, to the new shard, so the heat moves instead of spreading (in the busiest window, %s, shard %s runs at %s against a median of %s); the key grows with time: lead it with another field (a composite key) or a salt bucket",
			longest, v.ShardName(first), v.PeakAt(), v.ShardName(hot), units.Percent(loads[hot], 1), units.Percent(med, 1)),
		Evidence: map[string]float64{"chain": float64(longest), "shard": float64(hot), "shard_load": metrics.Util(loads[hot]), "median_load": metrics.Util(med)}})
}
