package diagnose

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// burst applies synchronized_burst: the whole cluster, not one shard, runs hot in short
// bursts that recur at a fixed period (clients flushing on the same clock tick, caches
// expiring together). A burst is a run of windows whose cluster load is above the midpoint
// of the mean and the peak; the period is the most common distance between the starts of
// consecutive bursts, when at least burstMinRepeats gaps share it.
func (f *finding) burst() {
	r := f.r
	load, mean, ok := metrics.ClusterLoads(r)
	if !ok {
		return
	}
	peak, peakW := 0.0, 0
	for w, l := range load {
		if l > peak {
			peak, peakW = l, w
		}
	}
	if peak < burstPeakLoad || peak < burstRatio*mean {
		return
	}
	line := (mean + peak) / 2
	starts, width := burstsAbove(load, line)
	period, repeats := commonGap(starts)
	if repeats < burstMinRepeats {
		return
	}
	every := sim.Time(period) * r.Window
	f.add(Diagnosis{Kind: "synchronized_burst", Subject: "cluster",
		Message: fmt.Sprintf("the cluster runs at %s of its cores on average but at %s in its busiest window (%s): %d bursts, %d windows in all above %s, most of them %v apart: the load is bunched in time, not in the key space; spread the clients' timing (jitter) or provision for the peak",
			units.Percent(mean, 1), units.Percent(peak, 1), units.Clock(f.Scenario.Start, sim.Time(peakW)*r.Window, units.TimeOfDay), len(starts), width, units.Percent(line, 1), every),
		Evidence: map[string]float64{"mean_load": metrics.Util(mean), "peak_load": metrics.Util(peak), "bursts": float64(len(starts)), "period_s": every.Seconds()}})
}

// burstsAbove returns the windows where a run of loads at or above line starts, and how
// many windows are at or above it in all.
func burstsAbove(load []float64, line float64) (starts []int, width int) {
	for w := range load {
		if load[w] >= line && (w == 0 || load[w-1] < line) {
			starts = append(starts, w)
		}
		if load[w] >= line {
			width++
		}
	}
	return starts, width
}

// commonGap returns the most common distance between consecutive starts (the shorter on
// ties) and how many gaps have it.
func commonGap(starts []int) (period, repeats int) {
	gaps := map[int]int{}
	for i := 1; i < len(starts); i++ {
		g := starts[i] - starts[i-1]
		gaps[g]++
		if gaps[g] > repeats || (gaps[g] == repeats && g < period) {
			period, repeats = g, gaps[g]
		}
	}
	return period, repeats
}

// stampedeRatio: backend reads in a window at least this many times their mean over the
// run make a stampede, when a node is at burstPeakLoad or more in that window.
const stampedeRatio = 3.0

// stampedes applies cache_stampede: a stream whose cache misses pile onto the database in
// bursts (many reads of an expired key at once) while no miss ever waited for another (no
// single-flight), and a node is overloaded when they do.
func (f *finding) stampedes() {
	r := f.r
	// The cache starts empty: the warmup's misses are not a stampede.
	first := int((f.Scenario.Warmup + r.Window - 1) / r.Window)
	for i := range f.Run.Streams {
		c := f.Run.Streams[i].Cache
		if c == nil || c.BackendReads == 0 || c.Joined > 0 {
			continue
		}
		peak, peakW, mean, ok := metrics.BackendPeak(r, i, first)
		if !ok || mean == 0 || float64(peak) < stampedeRatio*mean {
			continue
		}
		node, nl := metrics.HottestNodeIn(r, peakW)
		if nl < burstPeakLoad {
			continue
		}
		name := f.Run.Streams[i].Name
		f.add(Diagnosis{Kind: "cache_stampede", Subject: name,
			Message: fmt.Sprintf("%s's cache misses reach the database in bursts: %s backend reads in the window at %s against %.0f per window on average, while node %d runs at %s; misses of an expired key all read the database until the first answer returns: turn on single_flight (and stale_while_revalidate), or add TTL jitter",
				name, units.Count(peak), units.Clock(f.Scenario.Start, sim.Time(peakW)*r.Window, units.TimeOfDay), mean, node, units.Percent(nl, 1)),
			Evidence: map[string]float64{"peak_backend_reads": float64(peak), "mean_backend_reads": mean, "node": float64(node), "node_load": metrics.Util(nl)}})
	}
}

// splitChainLength is how many splits in a row, each of the shard the previous one created,
// show that automatic splits are chasing a key that grows with time.
const splitChainLength = 3

// splitChain applies monotonic_key to the splits automatic splitting made: each split
// hands the upper half of the hot shard's keys, and with them every new key, to the new
// shard, which then splits in turn. It explains every shard.
func (f *finding) splitChain() {
	longest, first := metrics.SplitChain(f.r)
	if longest < splitChainLength {
		return
	}
	hot := 0
	for s, l := range f.loads {
		if l > f.loads[hot] {
			hot = s
		}
	}
	writer := ""
	for i := range f.Run.Streams {
		if f.Run.Streams[i].Op == sim.Write {
			writer = f.Run.Streams[i].Name
			break
		}
	}
	for s := range f.loads {
		f.explained[s] = true
	}
	f.add(Diagnosis{Kind: "monotonic_key", Subject: writer,
		Message: fmt.Sprintf("%d splits in a row, from shard %s on, each of the shard the previous split created: every split hands the newest keys, and with them all of the writes, to the new shard, so the heat moves instead of spreading (in the busiest window, %s, shard %s runs at %s against a median of %s); the key grows with time: lead it with another field (a composite key) or a salt bucket",
			longest, f.shardName(first), f.peakAt, f.shardName(hot), units.Percent(f.loads[hot], 1), units.Percent(f.med, 1)),
		Evidence: map[string]float64{"chain": float64(longest), "shard": float64(hot), "shard_load": metrics.Util(f.loads[hot]), "median_load": metrics.Util(f.med)}})
}
