package diagnose

import (
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// PlacementShardLoad: a shard that runs at a quarter of its node's cores or more, half of
// ShardHotLoad so that two of them make a node hot, and at SkewRatio times the median
// shard or more, is one of the shards that make its node hot. A node at ShardHotLoad or
// more that holds two or more of them is hot by placement: the shards would be bearable
// apart. The same rule judges explain's predicted peaks and a run's busiest windows.
const PlacementShardLoad = ShardHotLoad / 2

// CoLocated returns, in increasing order, the shards of onNode that make a node at
// nodeLoad hot by the placement rule (see PlacementShardLoad), or nil when the node is not
// hot or fewer than two of its shards qualify. loads[s] is shard s's load and med the
// median shard load, all fractions of cores at one time (a window, or the predicted peak).
func CoLocated(nodeLoad float64, onNode []int, loads []float64, med float64) []int {
	if nodeLoad < ShardHotLoad {
		return nil
	}
	var hot []int
	for _, s := range onNode {
		if s >= 0 && s < len(loads) && loads[s] >= PlacementShardLoad && (med == 0 || loads[s] >= SkewRatio*med) {
			hot = append(hot, s)
		}
	}
	if len(hot) < 2 {
		return nil
	}
	slices.Sort(hot)
	return hot
}

// placement applies the placement rule to each node at ShardHotLoad or more of its cores
// in its busiest window (as metrics found it) that holds, in that window, two or more of
// the shards that make it hot (CoLocated). The shards may each be under the hot
// threshold, so that no other rule sees them, while the node runs hot.
func (f *finding) placement() {
	r := f.r
	peaks := metrics.NewPeakShards(r)
	for _, nd := range f.Run.Nodes {
		if nd.Peak < ShardHotLoad || nd.PeakWindow >= r.Windows {
			continue
		}
		onNode, loads, med, ok := peaks.At(nd)
		if !ok {
			continue
		}
		if hot := CoLocated(nd.Peak, onNode, loads, med); hot != nil {
			f.add(f.placed(nd, hot, loads, med))
		}
	}
}

// placed is the placement finding for node nd and its co-located hot shards.
func (f *finding) placed(nd metrics.Node, hot []int, loads []float64, med float64) Diagnosis {
	w := nd.PeakWindow
	cores := metrics.CoresIn(f.r, w, nd.ID)
	ev := map[string]float64{"node": float64(nd.ID), "node_load": metrics.Util(nd.Peak), "cores": units.Round(cores, 3), "shards": float64(len(hot)), "median_load": metrics.Util(med)}
	parts := make([]string, len(hot))
	alone := true
	for i, s := range hot {
		parts[i] = fmt.Sprintf("shard %s at %s", f.shardName(s), units.Percent(loads[s], 1))
		ev[fmt.Sprintf("shard_%d_load", s)] = metrics.Util(loads[s])
		alone = alone && loads[s] < ShardHotLoad
	}
	none := ""
	if alone {
		none = fmt.Sprintf("; none of them reaches %.0f%% alone", 100*ShardHotLoad)
	}
	return Diagnosis{Kind: "placement", Subject: fmt.Sprintf("node %d", nd.ID),
		Message: fmt.Sprintf("node %d runs at %s of its %s in its busiest window (%s), carrying %s while the median shard runs at %s%s: the shards are co-located, so the placement is the hotspot; move all but one to other nodes (rebalance: cluster.placement or shard_nodes), or add nodes",
			nd.ID, units.Percent(nd.Peak, 1), metrics.Cores(cores), units.Clock(f.Scenario.Start, sim.Time(w)*f.r.Window, units.TimeOfDay), metrics.JoinAnd(parts), units.Percent(med, 1), none),
		Evidence: ev}
}

// busiest is the busiest hot key the sketch tracks on a shard: the share of its stream's
// requests it surely has, the estimate's, its name and how many keys its stream draws.
type busiest struct {
	sure, upper float64
	name        string
	drawn       uint64
}

// busiestOn returns the busiest tracked hot key on shard s.
func (f *finding) busiestOn(s int) busiest {
	var b busiest
	for _, hk := range f.HotKeys {
		for _, k := range hk.Keys {
			if sure := metrics.Share(k.Count-k.Error, hk.Counted); k.Shard == s && (b.name == "" || sure > b.sure) {
				b = busiest{sure: sure, upper: k.Share, name: fmt.Sprintf("%s (%s)", k.Key, hk.Stream)}
				if f.stream(hk.Stream) != nil {
					b.drawn = f.Variant.StreamNamed(hk.Stream).KeysDrawn
				}
			}
		}
	}
	return b
}

// manyKeys applies hot_shard_many_keys to each hot shard that no other rule explains and
// no single key does. It needs the hot-key sketch to say so; without it the report cannot
// tell.
func (f *finding) manyKeys() {
	if len(f.HotKeys) == 0 {
		return
	}
	for s, l := range f.loads {
		if !f.hot(s) || f.explained[s] {
			continue
		}
		b := f.busiestOn(s)
		keys, remedy := b.words()
		ratio := "while the median shard is idle"
		if f.med > 0 {
			ratio = fmt.Sprintf("%.1f times the median shard's %s", l/f.med, units.Percent(f.med, 1))
		}
		if c := copyingIn(f.r, s, f.pw); c != "" {
			remedy = c + ": the copy's reads and writes count in the shard's load, so judge the key by a window without it"
		}
		f.add(Diagnosis{Kind: "hot_shard_many_keys", Subject: "shard " + f.shardName(s),
			Message: fmt.Sprintf("shard %s runs at %s of its node's cores in the busiest window (%s), %s, and %s: %s",
				f.shardName(s), units.Percent(l, 1), f.peakAt, ratio, keys, remedy),
			Evidence: map[string]float64{"shard": float64(s), "shard_load": metrics.Util(l), "median_load": metrics.Util(f.med), "top_key_share": b.sure}})
	}
}

// words says what the busiest key shows of its shard, and the remedy that follows.
func (b busiest) words() (keys, remedy string) {
	keys = "no tracked hot key lives on it"
	remedy = "many keys share the shard; split it (reshard) or salt the key"
	switch {
	case b.name != "" && b.sure > hotKeyShare && b.sure <= FairBar(b.drawn):
		// Not named as a hot key for being within fairFactor times its fair share: the
		// stream draws so few keys that each is a large share.
		keys = fmt.Sprintf("its busiest key, %s, takes %s of its stream's requests, within %g times the %s each of the %s keys its stream draws would take if spread evenly",
			b.name, units.Percent(b.sure, 1), fairFactor, units.Percent(1/float64(b.drawn), 1), units.Count(int64(b.drawn)))
		remedy = "the stream has too few keys for the shards to take them evenly, and this shard got more than its part; add a high-cardinality component to the key (an id, or a hashed bucket)"
	case b.name != "" && b.upper > b.sure:
		keys = fmt.Sprintf("the busiest key the sketch tracks on it, %s, has between %s and %s of its stream's requests", b.name, units.Percent(b.sure, 1), units.Percent(b.upper, 1))
	case b.name != "":
		keys = fmt.Sprintf("its busiest key, %s, takes only %s of its stream's requests", b.name, units.Percent(b.sure, 1))
	}
	return keys, remedy
}

// copyingIn says when shard s was being copied during window w, by a rebalance's move
// of it or a migration's backfill (metrics.CopyingIn); "" when it was not.
func copyingIn(r *sim.Result, s, w int) string {
	c := metrics.CopyingIn(r, s, w)
	switch {
	case c.Move != nil:
		return fmt.Sprintf("the shard was being moved from node %d to node %d in that window (the rebalance)", c.Move.From, c.Move.To)
	case c.Backfill:
		return "the migration's backfill was copying rows in that window"
	}
	return ""
}
