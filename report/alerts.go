package report

import (
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// The hot-shard detector: a shard whose load over a whole window is above HotLoad of its
// node's cores and above hotRatio times the median shard's is hot; the alert fires at the
// end of the first such window (when a detector of window averages could know) and clears
// at the end of the first window that is not.
const hotRatio = 3

// Alerts derives a run's alert timeline from its windows: hot-shard alerts and their
// clearing, the first window in which each stream's p99 crosses each of its SLO thresholds,
// and the first window in which a stream's requests were rejected. It is sorted by time.
func Alerts(sc *scenarios.Scenario, run Run) []Alert {
	r := run.Result
	var out []Alert
	at := func(w int) (string, float64) {
		t := min(sim.Time(w+1)*r.Window, r.Duration)
		return scenarios.FormatClock(sc.Start, t), t.Seconds()
	}
	hot := make([]bool, len(r.Shards))
	loads := make([]float64, len(r.Shards))
	for w := 0; w < r.Windows; w++ {
		for s := range loads {
			loads[s] = r.ShardUtilization(w, s)
		}
		med := Median(loads)
		for s, l := range loads {
			now := l > HotLoad && l > hotRatio*med
			if now == hot[s] {
				continue
			}
			hot[s] = now
			clock, secs := at(w)
			a := Alert{At: clock, AtS: secs, Subject: fmt.Sprintf("shard %d", s)}
			if now {
				a.Kind = "hot_shard"
				a.Message = fmt.Sprintf("shard %d (node %d) at %s of its node's cores; median shard %s%s",
					s, r.Shards[s].Node, fmtPct(l), fmtPct(med), ratioWords(l, med))
			} else {
				a.Kind = "hot_shard_cleared"
				a.Message = fmt.Sprintf("shard %d back to %s (median %s)", s, fmtPct(l), fmtPct(med))
			}
			out = append(out, a)
		}
	}
	for i := range r.Streams {
		st := &r.Streams[i]
		var slo []sim.Time
		if i < len(run.Variant.Streams) {
			slo = run.Variant.Streams[i].SLO
		}
		next, rejected := 0, false
		for w := 0; w < r.Windows; w++ {
			win := &st.Win[w]
			if win.Errors > 0 && !rejected {
				rejected = true
				clock, secs := at(w)
				out = append(out, Alert{At: clock, AtS: secs, Kind: "errors", Subject: st.Name,
					Message: fmt.Sprintf("%s: %d requests rejected in the window (a node's queue is full)", st.Name, win.Errors)})
			}
			if win.Completed == 0 {
				continue
			}
			p99 := win.QuantileMillis(0.99)
			for next < len(slo) && p99 > slo[next].Millis() {
				clock, secs := at(w)
				out = append(out, Alert{At: clock, AtS: secs, Kind: "latency", Subject: st.Name,
					Message: fmt.Sprintf("%s p99 crossed %s (%s ms in the window)", st.Name, slo[next], fmtMs(p99))})
				next++
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Alert) int {
		switch {
		case a.AtS < b.AtS:
			return -1
		case a.AtS > b.AtS:
			return 1
		}
		return 0
	})
	return out
}

func ratioWords(l, med float64) string {
	if med <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.1fx)", l/med)
}
