package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
	"github.com/shardsim/shardsim/units"
)

// Diagnosis is one finding about why a variant's load is uneven, with the remedy that
// fits it and the numbers it rests on.
type Diagnosis struct {
	Kind     string             `json:"kind"`
	Subject  string             `json:"subject"`
	Message  string             `json:"message"`
	Evidence map[string]float64 `json:"evidence"`
}

// noHotspot is what the text says of a variant without a diagnosis.
var noHotspot = fmt.Sprintf("no hotspot found (in the busiest window no shard ran at %.0f%% of its node's cores or more and %g times the median shard)", 100*diagHotLoad, diagSkewRatio)

// The diagnosis rules' thresholds. Loads are fractions of a node's cores, shares fractions
// of a stream's requests (or of all rows written).
const (
	// A shard is hot, for the diagnosis, when in the busiest window it runs at diagHotLoad
	// or more of its node's cores and at diagSkewRatio times the median shard or more.
	// Below half the cores an uneven spread costs nothing yet.
	diagHotLoad   = 0.5
	diagSkewRatio = 2.0
	// hotKeyShare: one key with more than 5% of a stream's requests is a hot key (with
	// 12 shards, an even spread gives each shard about 8%).
	hotKeyShare = 0.05
	// dominantShare: a key, or the hot keys sharing their first field's value (a tenant),
	// with more than 30% of a stream's requests is a dominant tenant rather than a hot item.
	dominantShare = 0.30
	// fairFactor: a key (or tenant) is named only when its share is more than fairFactor
	// times its fair share, the 1/N each of the N keys its stream draws would take if the
	// requests spread evenly over them. A stream of 10 tenants gives each 10%: a small
	// tenant that shares the hot shard of a big one is at its fair share, not a cause.
	fairFactor = 2.0
	// monotonicRowShare: a write stream whose rows land more than half on one shard while it
	// writes monotonicPartitionsPerShard distinct partitions per shard or more has a key
	// that grows with time (or a sequence): every new key sorts after the last one.
	monotonicRowShare           = 0.5
	monotonicPartitionsPerShard = 16
	// burstPeakLoad, burstRatio: a cluster whose load in its busiest window reaches 90% of
	// all its cores while its mean over the run is under half of that is overloaded in
	// time, not in the key space; burstMinRepeats bursts at one period make it synchronized.
	burstPeakLoad   = 0.9
	burstRatio      = 2.0
	burstMinRepeats = 3
)

// placementShardLoad: a shard that runs at a quarter of its node's cores or more, half of
// diagHotLoad so that two of them make a node hot, and at diagSkewRatio times the median
// shard or more, is one of the shards that make its node hot. A node at diagHotLoad or more
// that holds two or more of them is hot by placement: the shards would be bearable apart.
// The same rule judges explain's predicted peaks and a run's busiest windows.
const placementShardLoad = diagHotLoad / 2

// coLocated returns, in increasing order, the shards of onNode that make a node at
// nodeLoad hot by the placement rule (see placementShardLoad), or nil when the node is not
// hot or fewer than two of its shards qualify. loads[s] is shard s's load and med the
// median shard load, all fractions of cores at one time (a window, or the predicted peak).
func coLocated(nodeLoad float64, onNode []int, loads []float64, med float64) []int {
	if nodeLoad < diagHotLoad {
		return nil
	}
	var hot []int
	for _, s := range onNode {
		if s >= 0 && s < len(loads) && loads[s] >= placementShardLoad && (med == 0 || loads[s] >= diagSkewRatio*med) {
			hot = append(hot, s)
		}
	}
	if len(hot) < 2 {
		return nil
	}
	slices.Sort(hot)
	return hot
}

// pctAtLeast is units.Percent(x, 1) for an upper bound that may round to nothing: "0.1%" rather than
// "0.0%" for a share under a thousandth.
func pctAtLeast(x float64) string {
	if x < 0.001 {
		return "0.1%"
	}
	return units.Percent(x, 1)
}

// stampedeRatio: backend reads in a window at least this many times their mean over the
// run make a stampede, when a node is at burstPeakLoad or more in that window.
const stampedeRatio = 3.0

// stampedeDiagnosis finds cache stampedes: a stream whose cache misses pile onto the
// database in bursts (many reads of an expired key at once) while no miss ever waited for
// another (no single-flight), and a node is overloaded when they do.
func stampedeDiagnosis(sc *spec.Scenario, r *sim.Result) []Diagnosis {
	var out []Diagnosis
	nn := len(r.Nodes)
	for i := range r.Streams {
		st := &r.Streams[i]
		if st.BackendReads == 0 || st.CacheJoined > 0 {
			continue
		}
		// The cache starts empty: the warmup's misses are not a stampede.
		first := int((sc.Warmup + r.Window - 1) / r.Window)
		if first >= len(st.Win) {
			continue
		}
		var total int64
		peak, peakW := int64(0), first
		for w := first; w < len(st.Win); w++ {
			b := st.Win[w].BackendReads
			total += b
			if b > peak {
				peak, peakW = b, w
			}
		}
		mean := float64(total) / float64(len(st.Win)-first)
		if mean == 0 || float64(peak) < stampedeRatio*mean {
			continue
		}
		node, nl := -1, 0.0
		for n := 0; n < nn; n++ {
			if l := r.NodeUtilization(peakW, n); l > nl {
				node, nl = n, l
			}
		}
		if nl < burstPeakLoad {
			continue
		}
		out = append(out, Diagnosis{Kind: "cache_stampede", Subject: st.Name,
			Message: fmt.Sprintf("%s's cache misses reach the database in bursts: %s backend reads in the window at %s against %.0f per window on average, while node %d runs at %s; misses of an expired key all read the database until the first answer returns: turn on single_flight (and stale_while_revalidate), or add TTL jitter",
				st.Name, units.Count(peak), units.Clock(sc.Start, sim.Time(peakW)*r.Window, units.TimeOfDay), mean, node, units.Percent(nl, 1)),
			Evidence: map[string]float64{"peak_backend_reads": float64(peak), "mean_backend_reads": mean, "node": float64(node), "node_load": util(nl)}})
	}
	return out
}

// splitChainLength is how many splits in a row, each of the shard the previous one created,
// show that automatic splits are chasing a key that grows with time.
const splitChainLength = 3

// splitChainDiagnosis finds the monotonic key that automatic splitting cannot fix: each
// split hands the upper half of the hot shard's keys, and with them every new key, to the
// new shard, which then splits in turn.
func splitChainDiagnosis(r *sim.Result, loads []float64, med float64, peakAt string) (Diagnosis, bool) {
	chain, longest, last := 0, 0, -1
	var first int
	for _, e := range r.Events {
		if e.Kind != sim.EventSplit {
			continue
		}
		if last >= 0 && e.Shard < len(r.Shards) && r.Shards[e.Shard].Parent == last {
			chain++
		} else {
			chain, first = 1, e.Shard
		}
		longest = max(longest, chain)
		last = e.Shard
	}
	if longest < splitChainLength {
		return Diagnosis{}, false
	}
	hot := 0
	for s, l := range loads {
		if l > loads[hot] {
			hot = s
		}
	}
	writer := ""
	for i := range r.Streams {
		if r.Streams[i].Op == sim.Write {
			writer = r.Streams[i].Name
			break
		}
	}
	return Diagnosis{Kind: "monotonic_key", Subject: writer,
		Message: fmt.Sprintf("%d splits in a row, from shard %d on, each of the shard the previous split created: every split hands the newest keys, and with them all of the writes, to the new shard, so the heat moves instead of spreading (in the busiest window, %s, shard %d runs at %s against a median of %s); the key grows with time: lead it with another field (a composite key) or a salt bucket",
			longest, first, peakAt, hot, units.Percent(loads[hot], 1), units.Percent(med, 1)),
		Evidence: map[string]float64{"chain": float64(longest), "shard": float64(hot), "shard_load": util(loads[hot]), "median_load": util(med)}}, true
}

// burstDiagnosis finds the synchronized_burst hotspot: the whole cluster, not one shard,
// runs hot in short bursts that recur at a fixed period (clients flushing on the same
// clock tick, caches expiring together). A burst is a run of windows whose cluster load is
// above the midpoint of the mean and the peak; the period is the most common distance
// between the starts of consecutive bursts, when at least burstMinRepeats gaps share it.
func burstDiagnosis(sc *spec.Scenario, r *sim.Result) (Diagnosis, bool) {
	nn := len(r.Nodes)
	load := make([]float64, r.Windows)
	var busy, capacity sim.Time
	for w := range load {
		var b, c sim.Time
		for n := 0; n < nn; n++ {
			b += r.NodeBusy[w*nn+n]
			c += r.NodeCapacity[w*nn+n]
		}
		if c > 0 {
			load[w] = float64(b) / float64(c)
		}
		busy, capacity = busy+b, capacity+c
	}
	if capacity == 0 {
		return Diagnosis{}, false
	}
	mean := float64(busy) / float64(capacity)
	peak, peakW := 0.0, 0
	for w, l := range load {
		if l > peak {
			peak, peakW = l, w
		}
	}
	if peak < burstPeakLoad || peak < burstRatio*mean {
		return Diagnosis{}, false
	}
	line := (mean + peak) / 2
	var starts []int
	width := 0
	for w := 0; w < len(load); w++ {
		if load[w] >= line && (w == 0 || load[w-1] < line) {
			starts = append(starts, w)
		}
		if load[w] >= line {
			width++
		}
	}
	gaps := map[int]int{}
	period, repeats := 0, 0
	for i := 1; i < len(starts); i++ {
		g := starts[i] - starts[i-1]
		gaps[g]++
		if gaps[g] > repeats || (gaps[g] == repeats && g < period) {
			period, repeats = g, gaps[g]
		}
	}
	if repeats < burstMinRepeats {
		return Diagnosis{}, false
	}
	every := sim.Time(period) * r.Window
	return Diagnosis{Kind: "synchronized_burst", Subject: "cluster",
		Message: fmt.Sprintf("the cluster runs at %s of its cores on average but at %s in its busiest window (%s): %d bursts, %d windows in all above %s, most of them %v apart: the load is bunched in time, not in the key space; spread the clients' timing (jitter) or provision for the peak",
			units.Percent(mean, 1), units.Percent(peak, 1), units.Clock(sc.Start, sim.Time(peakW)*r.Window, units.TimeOfDay), len(starts), width, units.Percent(line, 1), every),
		Evidence: map[string]float64{"mean_load": util(mean), "peak_load": util(peak), "bursts": float64(len(starts)), "period_s": every.Seconds()}}, true
}

// placementDiagnosis finds nodes hot by placement: a node at diagHotLoad or more of its
// cores in its busiest window (as metrics found it) that holds, in that window, two or
// more of the shards that make it hot (coLocated). The shards may each be under the hot
// threshold, so that no other rule sees them, while the node runs hot.
func placementDiagnosis(sc *spec.Scenario, r *sim.Result, m *metrics.Run) []Diagnosis {
	var out []Diagnosis
	loads := make([]float64, len(r.Shards))
	for _, nd := range m.Nodes {
		if nd.Peak < diagHotLoad || nd.PeakWindow >= r.Windows {
			continue
		}
		w := nd.PeakWindow
		var onNode []int
		var med float64
		if d := metrics.DigestOf(r); d != nil {
			// A streamed run kept, for each node's peak window, the shards on it that pass
			// coLocated's line (metrics.DigestLines): the same candidates.
			if d.NodePeakWindow[nd.ID] != w {
				continue // cannot be: the digest finds the peak as metrics does
			}
			for _, t := range d.NodeShards[nd.ID] {
				loads[t.Shard] = t.Load
				onNode = append(onNode, t.Shard)
			}
			med = d.Windows[w].Median
		} else {
			for s := range loads {
				loads[s] = r.ShardUtilization(w, s)
				if r.ShardNodeAt(s, w) == nd.ID {
					onNode = append(onNode, s)
				}
			}
			med = Median(loads)
		}
		hot := coLocated(nd.Peak, onNode, loads, med)
		if hot == nil {
			continue
		}
		cores := coresIn(r, w, nd.ID)
		ev := map[string]float64{"node": float64(nd.ID), "node_load": util(nd.Peak), "cores": units.Round(cores, 3), "shards": float64(len(hot)), "median_load": util(med)}
		parts := make([]string, len(hot))
		alone := true
		for i, s := range hot {
			parts[i] = fmt.Sprintf("shard %d at %s", s, units.Percent(loads[s], 1))
			ev[fmt.Sprintf("shard_%d_load", s)] = util(loads[s])
			alone = alone && loads[s] < diagHotLoad
		}
		none := ""
		if alone {
			none = fmt.Sprintf("; none of them reaches %.0f%% alone", 100*diagHotLoad)
		}
		out = append(out, Diagnosis{Kind: "placement", Subject: fmt.Sprintf("node %d", nd.ID),
			Message: fmt.Sprintf("node %d runs at %s of its %s in its busiest window (%s), carrying %s while the median shard runs at %s%s: the shards are co-located, so the placement is the hotspot; move all but one to other nodes (rebalance: cluster.placement or shard_nodes), or add nodes",
				nd.ID, units.Percent(nd.Peak, 1), fmtCores(cores), units.Clock(sc.Start, sim.Time(w)*r.Window, units.TimeOfDay), joinAnd(parts), units.Percent(med, 1), none),
			Evidence: ev})
	}
	return out
}

// joinAnd lists items: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// coresIn returns the cores node n had on average in window w (its capacity over the
// window's length, the last window cut at the end of the run): an operator action may
// resize a node within a window.
func coresIn(r *sim.Result, w, n int) float64 {
	span := min(r.Window, r.Elapsed-sim.Time(w)*r.Window)
	if span <= 0 {
		span = r.Window
	}
	return float64(r.NodeCapacity[w*len(r.Nodes)+n]) / float64(span)
}

// fmtCores says "1 core", "4 cores", "2.5 cores".
func fmtCores(c float64) string {
	switch {
	case c == 1:
		return "1 core"
	case c == math.Trunc(c):
		return fmt.Sprintf("%.0f cores", c)
	}
	return fmt.Sprintf("%.1f cores", c)
}

// diagnose applies the rules to a variant whose summary is otherwise complete: hot_row_lock, hot_key,
// dominant_tenant, monotonic_key, low_cardinality, synchronized_burst, cache_stampede,
// placement, then hot_shard_many_keys for each hot shard that none of the others explains.
// m is the run's figures, from metrics.Of. A balanced variant gets none.
func diagnose(sc *spec.Scenario, run Run, m *metrics.Run, v *VariantSummary) []Diagnosis {
	r := run.Result
	out := []Diagnosis{}
	if len(r.Shards) == 0 || r.Windows == 0 {
		return out
	}
	pw := PeakWindow(r)
	peakAt := units.Clock(sc.Start, sim.Time(pw)*r.Window, units.TimeOfDay)
	loads := make([]float64, len(r.Shards))
	for s := range loads {
		if d := metrics.DigestOf(r); d != nil {
			loads[s] = d.PeakLoads[s]
		} else {
			loads[s] = r.ShardUtilization(pw, s)
		}
	}
	med := Median(loads)
	hot := func(s int) bool {
		return s >= 0 && s < len(loads) && loads[s] >= diagHotLoad && (med == 0 || loads[s] >= diagSkewRatio*med)
	}
	explained := map[int]bool{}
	shardWords := func(s int) string {
		return fmt.Sprintf("in the busiest window (%s) its shard %d runs at %s of its node's cores while the median shard runs at %s",
			peakAt, s, units.Percent(loads[s], 1), units.Percent(med, 1))
	}

	// hot_row_lock, from each locked stream's figures: it explains the stream, so neither
	// a hot key's nor a low cardinality's remedy is offered for it.
	locked := map[string]bool{}
	for i := range m.Streams {
		if d, ok := rowLockDiagnosis(&m.Streams[i]); ok {
			locked[m.Streams[i].Name] = true
			// The row's shard is hot, if it is, for the same reason: the row's writes.
			if st := streamByName(r, m.Streams[i].Name); st != nil && len(st.HotPartitions) > 0 {
				explained[st.HotPartitions[0].Shard] = true
				d.Evidence["shard"] = float64(st.HotPartitions[0].Shard)
			}
			out = append(out, d)
		}
	}

	// dominant_tenant and hot_key, from each stream's hot keys.
	for _, hk := range v.HotKeys {
		st := streamByName(r, hk.Stream)
		if st == nil || hk.Counted <= 0 || locked[hk.Stream] {
			continue
		}
		verb := "requests"
		switch st.Op {
		case sim.Write:
			verb = "writes"
		case sim.Read, sim.Scan:
			verb = "reads"
		}
		// Tenants: hot keys of two or more fields grouped by their first field's value.
		type tenant struct {
			value  uint64
			name   string
			count  int64
			keys   int
			shards []int
		}
		var tenants []*tenant
		for _, k := range hk.Keys {
			if len(k.Values) < 2 {
				continue
			}
			var t *tenant
			for _, x := range tenants {
				if x.value == k.Values[0] {
					t = x
				}
			}
			if t == nil {
				t = &tenant{value: k.Values[0], name: firstField(k.Key, k.Values)}
				tenants = append(tenants, t)
			}
			t.count += k.Count - k.Error
			t.keys++
			t.shards = append(t.shards, k.Shard)
		}
		dominant := map[uint64]bool{}
		nKeys, nTenants := keysDrawn(run, st)
		for _, t := range tenants {
			sh := share(t.count, hk.Counted)
			s := hottestOf(t.shards, loads)
			if t.keys < 2 || sh <= max(dominantShare, fairBar(nTenants)) || !hot(s) {
				continue
			}
			dominant[t.value] = true
			explained[s] = true
			out = append(out, Diagnosis{Kind: "dominant_tenant", Subject: t.name,
				Message: fmt.Sprintf("%s takes at least %s of %s's %s (its %d hottest keys together); %s: carve it out, a directory entry giving it shards of its own",
					t.name, units.Percent(sh, 1), hk.Stream, verb, t.keys, shardWords(s)),
				Evidence: map[string]float64{"share": sh, "keys": float64(t.keys), "shard": float64(s), "shard_load": util(loads[s]), "median_load": util(med)}})
			if nTenants > 0 {
				out[len(out)-1].Evidence["tenants_drawn"] = float64(nTenants)
			}
		}
		for _, k := range hk.Keys {
			// The rule judges the count the sketch guarantees (Count - Error); the message
			// cites the estimate.
			if share(k.Count-k.Error, hk.Counted) <= max(hotKeyShare, fairBar(nKeys)) || len(k.Values) >= 2 && dominant[k.Values[0]] {
				continue
			}
			// The key's shard now, or the one it lived on in the busiest window: a split
			// (by load or size) hands a hot key to the shard it creates, and the shard that
			// was hot is then its parent.
			s, movedTo := k.Shard, -1
			for !hot(s) && s >= 0 && s < len(r.Shards) && r.Shards[s].Parent >= 0 {
				s, movedTo = r.Shards[s].Parent, k.Shard
			}
			if !hot(s) {
				continue
			}
			explained[s] = true
			ev := map[string]float64{"share": k.Share, "count": float64(k.Count), "error": float64(k.Error),
				"shard": float64(s), "shard_load": util(loads[s]), "median_load": util(med)}
			if nKeys > 0 {
				ev["keys_drawn"] = float64(nKeys) // its fair share is one of them
			}
			where := shardWords(s)
			if movedTo >= 0 {
				where += fmt.Sprintf(" (a split has since handed the key to shard %d: a split cannot divide one key, it only moves it)", movedTo)
				ev["split_to"] = float64(movedTo)
			}
			if share(k.Count-k.Error, hk.Counted) > dominantShare && tenantKey(run, st, k) {
				// One value of a low-cardinality first field (a tenant or a category list)
				// with this much traffic: its rows are many, and a directory entry can give
				// them shards of their own.
				out = append(out, Diagnosis{Kind: "dominant_tenant", Subject: k.Key,
					Message: fmt.Sprintf("%s takes %s of %s's %s; %s: one value this large is a tenant or a category, not an item: carve it out, a directory entry giving it shards of its own",
						k.Key, units.Percent(k.Share, 1), hk.Stream, verb, where),
					Evidence: ev})
				continue
			}
			remedy := "cache it, or keep copies of it on several nodes"
			if st.Op == sim.Write {
				remedy = "writes cannot be cached: shard its writes over several rows (salt this key, or keep N counter rows and sum them on read); if each write holds the row's lock, batch the updates too: the lock serializes them, so more cores or a split will not help"
			}
			if share(k.Count-k.Error, hk.Counted) > dominantShare {
				remedy = "one key this large cannot be spread by any key design, a directory entry or a split: " + remedy
			}
			out = append(out, Diagnosis{Kind: "hot_key", Subject: k.Key,
				Message:  fmt.Sprintf("%s takes %s of %s's %s; %s: %s", k.Key, units.Percent(k.Share, 1), hk.Stream, verb, where, remedy),
				Evidence: ev})
		}
	}

	// monotonic_key and low_cardinality, from the rows each write stream added to each
	// shard (all streams' rows, for a result that did not count them by stream) and the
	// partitions it wrote.
	ordered := strings.HasPrefix(v.Key, "range") // a scheme that keeps the keys' order
	buckets := 1                                 // salt buckets, each a range of its own
	if run.Variant != nil && run.Variant.Spec != nil && run.Variant.Spec.Salt > 1 {
		buckets = run.Variant.Spec.Salt
	}
	for _, hp := range v.HotPartitions {
		pw := hp.PartitionsWritten
		if pw <= 0 || locked[hp.Stream] {
			continue
		}
		shardRows := make([]int64, len(v.Shards))
		if st := streamByName(r, hp.Stream); st != nil && len(st.ShardRows) == len(v.Shards) {
			copy(shardRows, st.ShardRows)
		} else {
			for s, sh := range v.Shards {
				shardRows[s] = sh.Rows
			}
		}
		var rows int64
		top, written, hotWritten := 0, 0, false
		for s, n := range shardRows {
			rows += n
			if n > shardRows[top] {
				top = s
			}
			if n > 0 {
				written++
				hotWritten = hotWritten || hot(s)
			}
		}
		if rows <= 0 {
			continue
		}
		shards := len(v.Shards)
		topShare := 0.0
		for _, p := range hp.Partitions {
			topShare = max(topShare, share(p.Writes-p.Error, hp.Counted)) // what the sketch guarantees
		}
		rowShare := share(shardRows[top], rows)
		switch {
		case pw < int64(shards) && written < shards && hotWritten:
			// Few partitions cost something only when one of the shards they land on runs
			// hot; a few salt buckets of a counter on shards with cores to spare are a design.
			for s, n := range shardRows {
				if n > 0 {
					explained[s] = true
				}
			}
			out = append(out, Diagnosis{Kind: "low_cardinality", Subject: hp.Stream,
				Message: fmt.Sprintf("%s wrote only %s distinct %s over %d shards, so %s took every row written while %d got none: add a high-cardinality component to the key (an id, or a hashed bucket)",
					hp.Stream, fmtAbout(pw, hp.Counted), nounFor(pw, "partition"), shards, plural(int64(written), "shard"), shards-written),
				Evidence: map[string]float64{"partitions_written": float64(pw), "shards": float64(shards), "shards_written": float64(written), "idle_shards": float64(shards - written)}})
		case ordered && pw >= int64(monotonicPartitionsPerShard*shards) && rowShare > monotonicRowShare && topShare <= hotKeyShare && shards > 1:
			// Under a scheme that keeps the keys' order, the stream's new rows piling onto
			// one shard while no partition stands out is a key that grows with time.
			explained[top] = true
			where := fmt.Sprintf("shard %d", top)
			if top == shards-1 {
				where = fmt.Sprintf("shard %d, the highest of the range,", top)
			}
			out = append(out, Diagnosis{Kind: "monotonic_key", Subject: hp.Stream,
				Message: fmt.Sprintf("%s wrote %s distinct partitions among %s sampled writes, none more than %s of its writes, yet %s took %s of the rows it wrote: its key grows with time, so every new key lands at the end; %s ran at %s in the busiest window (%s) while the median shard ran at %s: lead the key with another field (a composite key) or a salt bucket",
					hp.Stream, fmtAbout(pw, hp.Counted), units.Count(hp.Counted), pctAtLeast(topShare), where, units.Percent(rowShare, 1), fmt.Sprintf("shard %d", top), units.Percent(loads[top], 1), peakAt, units.Percent(med, 1)),
				Evidence: map[string]float64{"partitions_written": float64(pw), "shard": float64(top), "row_share": rowShare,
					"top_partition_share": topShare, "shard_load": util(loads[top]), "median_load": util(med)}})
		case ordered && buckets > 1 && 2*buckets <= shards && pw >= int64(monotonicPartitionsPerShard*shards) && topShare <= hotKeyShare:
			// Salted, the key still grows with time in each bucket: the new rows pile onto
			// the last range of each, as many shards as buckets. Said when those shards
			// take most of the rows and one of them runs hot.
			order := make([]int, shards)
			for s := range order {
				order[s] = s
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(shardRows[b], shardRows[a]) })
			var topRows int64
			hotTop := -1
			for _, s := range order[:buckets] {
				topRows += shardRows[s]
				if hot(s) && (hotTop < 0 || loads[s] > loads[hotTop]) {
					hotTop = s
				}
			}
			bucketShare := share(topRows, rows)
			if bucketShare <= monotonicRowShare || hotTop < 0 {
				break
			}
			for _, s := range order[:buckets] {
				explained[s] = true
			}
			out = append(out, Diagnosis{Kind: "monotonic_key", Subject: hp.Stream,
				Message: fmt.Sprintf("%s wrote %s distinct partitions among %s sampled writes, none more than %s of its writes, yet %d shards, one per salt bucket, took %s of the rows it wrote: within each bucket the key grows with time, so every new key lands at the end of its bucket's range; shard %d ran at %s in the busiest window (%s) while the median shard ran at %s: more buckets spread the new keys over more shards (a read that cannot derive its bucket visits them all), or lead the key with another field (a composite key)",
					hp.Stream, fmtAbout(pw, hp.Counted), units.Count(hp.Counted), pctAtLeast(topShare), buckets, units.Percent(bucketShare, 1), hotTop, units.Percent(loads[hotTop], 1), peakAt, units.Percent(med, 1)),
				Evidence: map[string]float64{"partitions_written": float64(pw), "buckets": float64(buckets), "shard": float64(hotTop), "row_share": bucketShare,
					"top_partition_share": topShare, "shard_load": util(loads[hotTop]), "median_load": util(med)}})
		}
	}

	if d, ok := burstDiagnosis(sc, r); ok {
		out = append(out, d)
	}
	out = append(out, stampedeDiagnosis(sc, r)...)
	if d, ok := splitChainDiagnosis(r, loads, med, peakAt); ok {
		for s := range loads {
			explained[s] = true
		}
		out = append(out, d)
	}
	out = append(out, placementDiagnosis(sc, r, m)...)

	// hot_shard_many_keys: a hot shard that no single key explains. It needs the hot-key
	// sketch to say so; without it the report cannot tell.
	if len(v.HotKeys) == 0 {
		return out
	}
	for s, l := range loads {
		if !hot(s) || explained[s] {
			continue
		}
		biggest, upper, name, drawn := 0.0, 0.0, "", uint64(0)
		for _, hk := range v.HotKeys {
			for _, k := range hk.Keys {
				if sure := share(k.Count-k.Error, hk.Counted); k.Shard == s && (name == "" || sure > biggest) {
					biggest, upper, name, drawn = sure, k.Share, fmt.Sprintf("%s (%s)", k.Key, hk.Stream), 0
					if st := streamByName(r, hk.Stream); st != nil {
						drawn, _ = keysDrawn(run, st)
					}
				}
			}
		}
		keys := "no tracked hot key lives on it"
		remedy := "many keys share the shard; split it (reshard) or salt the key"
		switch {
		case name != "" && biggest > hotKeyShare && biggest <= fairBar(drawn):
			// Not named as a hot key for being within fairFactor times its fair share: the
			// stream draws so few keys that each is a large share.
			keys = fmt.Sprintf("its busiest key, %s, takes %s of its stream's requests, within %g times the %s each of the %s keys its stream draws would take if spread evenly",
				name, units.Percent(biggest, 1), fairFactor, units.Percent(1/float64(drawn), 1), units.Count(int64(drawn)))
			remedy = "the stream has too few keys for the shards to take them evenly, and this shard got more than its part; add a high-cardinality component to the key (an id, or a hashed bucket)"
		case name != "" && upper > biggest:
			keys = fmt.Sprintf("the busiest key the sketch tracks on it, %s, has between %s and %s of its stream's requests", name, units.Percent(biggest, 1), units.Percent(upper, 1))
		case name != "":
			keys = fmt.Sprintf("its busiest key, %s, takes only %s of its stream's requests", name, units.Percent(biggest, 1))
		}
		ratio := "while the median shard is idle"
		if med > 0 {
			ratio = fmt.Sprintf("%.1f times the median shard's %s", l/med, units.Percent(med, 1))
		}
		if c := copyingIn(r, s, pw); c != "" {
			remedy = c + ": the copy's reads and writes count in the shard's load, so judge the key by a window without it"
		}
		out = append(out, Diagnosis{Kind: "hot_shard_many_keys", Subject: fmt.Sprintf("shard %d", s),
			Message: fmt.Sprintf("shard %d runs at %s of its node's cores in the busiest window (%s), %s, and %s: %s",
				s, units.Percent(l, 1), peakAt, ratio, keys, remedy),
			Evidence: map[string]float64{"shard": float64(s), "shard_load": util(l), "median_load": util(med), "top_key_share": biggest}})
	}
	return out
}

// copyingIn says when shard s was being copied during window w, by a rebalance's move
// of it or a migration's backfill, whose work is charged to the shards it reads and
// writes; "" when it was not.
func copyingIn(r *sim.Result, s, w int) string {
	from, to := sim.Time(w)*r.Window, sim.Time(w+1)*r.Window
	overlaps := func(start, done sim.Time) bool {
		return start >= 0 && start < to && (done < 0 || done > from)
	}
	if rb := r.Rebalance; rb != nil {
		for _, mv := range rb.Moves {
			if mv.Shard == s && overlaps(mv.Start, mv.Done) {
				return fmt.Sprintf("the shard was being moved from node %d to node %d in that window (the rebalance)", mv.From, mv.To)
			}
		}
	}
	if g := r.Migration; g != nil && overlaps(g.Start, g.BackfillDone) {
		return "the migration's backfill was copying rows in that window"
	}
	return ""
}

func streamByName(r *sim.Result, name string) *sim.StreamResult {
	for i := range r.Streams {
		if r.Streams[i].Name == name {
			return &r.Streams[i]
		}
	}
	return nil
}

// tenantKey reports whether hot key k of stream st names a tenant or a category rather
// than an item: its key's first field is categorical with two values or more (a list of
// tenants, regions, plans), so one value stands for many rows. An id drawn from a large
// population (a viral item, a celebrity) or the one row a stream writes (a counter) is an
// item, which a directory cannot spread.
func tenantKey(run Run, st *sim.StreamResult, k HotKey) bool {
	if run.Variant == nil || run.Variant.Spec == nil || len(k.Values) == 0 {
		return false
	}
	rs := run.Variant.Spec
	fields := spec.KeyFieldsOf(rs.Parts)
	if len(fields) == 0 {
		return false
	}
	var f spec.FieldSpec
	for i := range rs.Streams {
		if rs.Streams[i].Name == st.Name && fields[0] < len(rs.Streams[i].Fields) {
			f = rs.Streams[i].Fields[fields[0]]
		}
	}
	return f.Gen == "categorical" && f.Cardinality >= 2
}

// keysDrawn returns how many keys stream st draws, N, the product of its key fields'
// counts of values (a categorical field's values of positive weight), and how many values
// its key's first field draws (its tenants); 0 when unknown or unbounded (an id without n,
// a time, a replayed log, whose values are the log's). A key's fair share is 1/N, a
// tenant's one over its count.
func keysDrawn(run Run, st *sim.StreamResult) (keys, first uint64) {
	if run.Variant == nil || run.Variant.Spec == nil {
		return 0, 0
	}
	rs := run.Variant.Spec
	var ss *spec.StreamSpec
	for i := range rs.Streams {
		if rs.Streams[i].Name == st.Name {
			ss = &rs.Streams[i]
		}
	}
	if ss == nil || ss.Trace != nil {
		return 0, 0
	}
	keys = 1
	for i, f := range spec.KeyFieldsOf(rs.Parts) {
		if f < 0 || f >= len(ss.Fields) {
			return 0, 0
		}
		c := valuesDrawn(ss.Fields[f])
		if i == 0 {
			first = c
		}
		if c == 0 || keys > math.MaxUint64/c {
			keys = 0
		}
		keys *= c
	}
	return keys, first
}

// fairBar returns the share above which one of n keys (or tenants) is more than fairFactor
// times its fair share 1/n: no bar (0) when n is unknown, or 1, a stream of one key, which
// is all of its stream by construction and is judged by its share alone.
func fairBar(n uint64) float64 {
	if n < 2 {
		return 0
	}
	return fairFactor / float64(n)
}

// valuesDrawn returns how many values a field's generator draws: a categorical field's
// values of positive weight, the n of a uniform or Zipf id; 0 when unbounded.
func valuesDrawn(f spec.FieldSpec) uint64 {
	if f.Gen == "categorical" && f.Weights != nil {
		var n uint64
		for _, w := range f.Weights {
			if w > 0 {
				n++
			}
		}
		return n
	}
	return f.Cardinality
}

// hottestOf returns the shard of shards with the largest load (-1 for none).
func hottestOf(shards []int, loads []float64) int {
	best := -1
	for _, s := range shards {
		if s >= 0 && s < len(loads) && (best < 0 || loads[s] > loads[best]) {
			best = s
		}
	}
	return best
}

// firstField names a key's first field and value from its formatted name: the text up to
// the first ", " of "tenant_id=7, user_id=3" or "(tenant_id=7, user_id=3)"; the plain
// number when the key was not formatted with names.
func firstField(key string, values []uint64) string {
	k := strings.TrimPrefix(key, "(")
	if i := strings.Index(k, ", "); i > 0 && strings.Contains(k[:i], "=") {
		return k[:i]
	}
	return fmt.Sprint(values[0])
}

// hotLockLoad is the load of a row's lock from which it is a hotspot: at 0.7 a write waits
// more than a hold on average (Pollaczek-Khinchine, constant hold: rho/(2(1-rho)) = 1.17
// holds), and the wait grows as 1/(1-rho) beyond.
const hotLockLoad = 0.7

// rowLockDiagnosis finds a hot locked row: a stream whose hottest row's lock is offered
// hotLockLoad of its capacity or more (one row passes 1/hold writes a second), or
// whose writes failed waiting for it. A row cannot be split, cached or moved away from its
// lock: its writes must be spread over several rows, enough of them that each lock stays
// under half busy.
func rowLockDiagnosis(st *metrics.Stream) (Diagnosis, bool) {
	l := st.Locks
	failed := st.Failures[metrics.Lock]
	if l == nil || l.HoldMean == nil || (l.Busy < hotLockLoad && failed == 0) {
		return Diagnosis{}, false
	}
	rows := max(2, int(math.Ceil(2*l.Busy-1e-9)))
	capRate := 1000 / *l.HoldMean
	msg := fmt.Sprintf("%s sends %s writes/s to one row, whose lock (held %s ms a write) passes at most %s/s: it is offered %s of that",
		st.Name, units.Count(int64(math.Round(l.HotRate))), fmtMs(*l.HoldMean), units.Count(int64(math.Round(capRate))), units.Percent(l.Busy, 1))
	if failed > 0 {
		msg += fmt.Sprintf(", and %s writes failed waiting longer than lock_timeout", units.Count(failed))
	}
	msg += fmt.Sprintf("; more cores, a split or a directory cannot help one row: write-shard it over at least %d rows (salt the key, or keep %d counter rows and sum them on read), so that each row's lock stays under half busy", rows, rows)
	return Diagnosis{Kind: "hot_row_lock", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"writes_per_s": units.Round(l.HotRate, 1), "hold_ms": units.Round(*l.HoldMean, 4), "lock_load": units.Round(l.Busy, 4), "lock_failures": float64(failed), "rows_needed": float64(rows)}}, true
}

// nounFor is noun, or its plural for a count other than one.
func nounFor(n int64, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
