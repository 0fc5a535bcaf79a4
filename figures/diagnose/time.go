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
