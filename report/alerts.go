package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
	"github.com/shardsim/shardsim/units"
)

// The hot-shard detector: a shard whose load over a whole window is above HotLoad of its
// node's cores and above hotRatio times the median shard's is hot; the alert fires at the
// end of the first such window (when a detector of window averages could know) and clears
// at the end of the first window that is not.
const hotRatio = 3

// The node CPU detector: a node whose utilization over a window is above NodeCPULine fires
// node_cpu at the end of that window; it clears at the end of the first window below
// nodeCPUClear, so that a node hovering at the line does not flap.
const (
	NodeCPULine  = 0.9
	nodeCPUClear = 0.8
)

// Detection timing. Every alert says how long after the trouble began its detector fired,
// so that detectors can be compared: a node CPU alert against a p99 alert, say. The onset
// of trouble is measured on one line for every kind, a node's utilization over a window
// above NodeCPULine (90%):
//
//   - node_cpu: its node's onset (it fires at the end of that window: one window later);
//   - hot_shard: the onset of the node that served the shard;
//   - node_cpu_cleared and hot_shard_cleared: the start of their own window (one window);
//   - latency, errors, throttled, timed_out and saturated: the onset of the first node to
//     pass the line, cluster-wide.
//
// The onset is the start of the first window of the latest unbroken run of windows, at or
// before the alert's window, in which that node (or, cluster-wide, some node) was above
// the line. detected_after_s is the alert's time (the end of its window) minus the onset.
// When no node passed the line before the alert (throttling under a partition limit, or
// latency from fan-out alone), the alert's own window is its onset: one window.

// Alerts derives a run's alert timeline from its windows: hot-shard and node CPU alerts and
// their clearing, the first window in which each stream's p99 crosses each of its SLO
// thresholds, and the first window in which a stream's requests were rejected, throttled
// or timed out. Each alert carries its detection lag. It is sorted by time.
func Alerts(sc *spec.Scenario, run Run) []Alert {
	r := run.Result
	var out []Alert
	on := newOnsets(sc, r)
	add := func(w int, kind, subject, msg string, node int) {
		t := min(sim.Time(w+1)*r.Window, r.Duration)
		a := Alert{At: units.Clock(sc.Start, t, units.TimeOfDay), AtS: t.Seconds(), Kind: kind, Subject: subject, Message: msg}
		on.time(&a, w, node)
		out = append(out, a)
	}
	hot := make([]bool, len(r.Shards))
	loads := make([]float64, len(r.Shards))
	cpu := make([]bool, len(r.Nodes))
	d := metrics.DigestOf(r)
	if d != nil {
		loads, hot = nil, nil // a streamed run's digest found its changes (metrics.HotChange)
	}
	next := 0
	// A run stopped early (saturated or interrupted) covers no time after Elapsed: its
	// later windows have no span and no load, which is not a load that cleared.
	for w := 0; w < r.Windows && r.WindowSpan(w) > 0; w++ {
		for s := range loads {
			loads[s] = r.ShardUtilization(w, s)
		}
		med := Median(loads)
		type change struct {
			s, node int
			l, med  float64
			now     bool
		}
		var changes []change
		for s, l := range loads {
			now := l > HotLoad && l > hotRatio*med
			if now == hot[s] {
				continue
			}
			hot[s] = now
			changes = append(changes, change{s, r.ShardNodeAt(s, w), l, med, now})
		}
		for ; d != nil && next < len(d.Hot) && d.Hot[next].Window == w; next++ {
			c := &d.Hot[next]
			changes = append(changes, change{c.Shard, c.Node, c.Load, c.Median, c.Hot})
		}
		for _, c := range changes {
			s, l, med, now, node := c.s, c.l, c.med, c.now, c.node
			if from, ok := movedIn(r, s, w); now && ok {
				// The window's load was served on two nodes: neither need have passed the
				// CPU line, so say where it was served rather than blame node `node` alone.
				add(w, "hot_shard", fmt.Sprintf("shard %d", s), fmt.Sprintf("shard %d (moved from node %d to node %d during the window) at %s of a node's cores, served partly on each; median shard %s%s",
					s, from, node, units.Percent(l, 1), units.Percent(med, 1), ratioWords(l, med)), node)
				if a := &out[len(out)-1]; strings.Contains(a.Detection, "was not above") {
					a.Detection = fmt.Sprintf("fired %s after the start of its window; neither node %d nor node %d was above %.0f%%: the shard's load was split between them by its move",
						units.Duration(sim.Time(a.DetectedAfterS*float64(sim.Second))), from, node, 100*NodeCPULine)
				}
			} else if now {
				add(w, "hot_shard", fmt.Sprintf("shard %d", s), fmt.Sprintf("shard %d (node %d) at %s of its node's cores; median shard %s%s",
					s, node, units.Percent(l, 1), units.Percent(med, 1), ratioWords(l, med)), node)
			} else {
				add(w, "hot_shard_cleared", fmt.Sprintf("shard %d", s), fmt.Sprintf("shard %d back to %s (median %s)", s, units.Percent(l, 1), units.Percent(med, 1)), node)
			}
		}
		for n := range r.Nodes {
			u := r.NodeUtilization(w, n)
			switch {
			case !cpu[n] && u > NodeCPULine:
				cpu[n] = true
				add(w, "node_cpu", fmt.Sprintf("node %d", n), fmt.Sprintf("node %d at %s of its cores", n, units.Percent(u, 1)), n)
			case cpu[n] && u < nodeCPUClear:
				cpu[n] = false
				add(w, "node_cpu_cleared", fmt.Sprintf("node %d", n), fmt.Sprintf("node %d back to %s", n, units.Percent(u, 1)), n)
			}
		}
	}
	for i := range r.Streams {
		st := &r.Streams[i]
		var slo []sim.Time
		if run.Variant != nil && i < len(run.Variant.Streams) {
			slo = run.Variant.Streams[i].SLO
		}
		next, rejected, throttled, timedOut, locked := 0, false, false, false, false
		for w := 0; w < r.Windows && w < len(st.Win); w++ {
			win := &st.Win[w]
			if n := win.Errors - win.Throttled - win.TimedOut - win.LockTimedOut; n > 0 && !rejected {
				rejected = true
				why := "a node's queue is full"
				if st.Limited > 0 {
					why = "a node's queue is full, or the client's rate limit"
				}
				add(w, "errors", st.Name, fmt.Sprintf("%s: %s rejected in the window (%s)", st.Name, plural(n, "request"), why), -1)
			}
			if win.Throttled > 0 && !throttled {
				throttled = true
				add(w, "throttled", st.Name, fmt.Sprintf("%s: %s throttled in the window (a partition's throughput limit)", st.Name, plural(win.Throttled, "request")), -1)
			}
			if win.LockTimedOut > 0 && !locked {
				locked = true
				// Timed against the node of the row writes queued for most: a node elsewhere
				// passing 90% has nothing to do with a lock's queue.
				node := -1
				if len(st.HotLocks) > 0 && st.HotLocks[0].Shard >= 0 && st.HotLocks[0].Shard < len(r.Shards) {
					node = r.ShardNodeAt(st.HotLocks[0].Shard, w)
				}
				add(w, "lock_timeout", st.Name, fmt.Sprintf("%s: %s waited longer than lock_timeout for a row lock in the window", st.Name, plural(win.LockTimedOut, "write")), node)
			}
			if win.TimedOut > 0 && !timedOut {
				timedOut = true
				msg := fmt.Sprintf("%s: %s timed out in the window", st.Name, plural(win.TimedOut, "request"))
				if run.Variant != nil && i < len(run.Variant.Streams) && run.Variant.Streams[i].RetryLabel != "" && win.Retries > 0 {
					msg += fmt.Sprintf("; %s %s (retries) sent in it", units.Count(win.Retries), run.Variant.Streams[i].RetryLabel)
				}
				add(w, "timed_out", st.Name, msg, -1)
			}
			if win.Completed == 0 {
				continue
			}
			p99 := win.QuantileMillis(0.99)
			for next < len(slo) && p99 > slo[next].Millis() {
				msg := fmt.Sprintf("%s p99 crossed %s (%s ms in the window)", st.Name, slo[next], fmtMs(p99))
				end := min(sim.Time(w+1)*r.Window, r.Duration)
				fine, ok := metrics.FineCrossing(r, i, slo[next].Millis(), 0)
				if ok && fine <= end {
					msg = fmt.Sprintf("%s p99 crossed %s (%s ms in the window; in %s windows, at %s)", st.Name, slo[next], fmtMs(p99), r.Detail.Window, units.Clock(sc.Start, fine, units.TimeOfDay))
				}
				add(w, "latency", st.Name, msg, -1)
				if ok && fine <= end {
					a := &out[len(out)-1]
					secs := fine.Seconds()
					a.FineAt, a.FineAtS = units.Clock(sc.Start, fine, units.TimeOfDay), &secs
				}
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

// onsets finds where trouble began: over[w*nodes+n] is node n above NodeCPULine in window w.
type onsets struct {
	sc   *spec.Scenario
	r    *sim.Result
	over []bool
}

func newOnsets(sc *spec.Scenario, r *sim.Result) *onsets {
	o := &onsets{sc: sc, r: r, over: make([]bool, r.Windows*len(r.Nodes))}
	for w := 0; w < r.Windows; w++ {
		for n := range r.Nodes {
			o.over[w*len(r.Nodes)+n] = r.NodeUtilization(w, n) > NodeCPULine
		}
	}
	return o
}

// above reports whether node n (any node when n < 0) was above the line in window w, and
// which node (the lowest id).
func (o *onsets) above(w, n int) (bool, int) {
	nodes := len(o.r.Nodes)
	if n >= 0 {
		return o.over[w*nodes+n], n
	}
	for m := 0; m < nodes; m++ {
		if o.over[w*nodes+m] {
			return true, m
		}
	}
	return false, -1
}

// onset returns the first window of the latest run of windows at or before w in which
// node n (any node when n < 0) was above the line, and the node; -1 when there is none.
func (o *onsets) onset(w, n int) (int, int) {
	for w >= 0 {
		if ok, _ := o.above(w, n); ok {
			break
		}
		w--
	}
	if w < 0 {
		return -1, -1
	}
	for w > 0 {
		if ok, _ := o.above(w-1, n); !ok {
			break
		}
		w--
	}
	_, m := o.above(w, n)
	return w, m
}

// time fills a's onset and detection lag for an alert raised at the end of window w about
// node n (cluster-wide when n < 0).
func (o *onsets) time(a *Alert, w, n int) {
	ow, node := o.onset(w, n)
	if strings.HasSuffix(a.Kind, "_cleared") {
		// A clearing's line is the one it fell back under, in its own window.
		ow, node = -1, -1
	}
	subject := fmt.Sprintf("node %d", node)
	if a.Kind == "hot_shard" {
		subject = fmt.Sprintf("its node %d", node)
	}
	if ow < 0 {
		ow = w
	}
	start := sim.Time(ow) * o.r.Window
	a.Onset, a.OnsetS = units.Clock(o.sc.Start, start, units.TimeOfDay), units.Round(start.Seconds(), 6)
	a.DetectedAfterS = units.Round(a.AtS-start.Seconds(), 6)
	lagT := sim.Time(a.DetectedAfterS * float64(sim.Second))
	if lagT >= sim.Minute {
		// A lag of minutes to the nanosecond (a saturation's moment is not a window's end)
		// reads as noise: whole seconds, cut as the clock times are.
		lagT = lagT / sim.Second * sim.Second
	}
	lag := units.Duration(lagT)
	switch {
	case strings.HasSuffix(a.Kind, "_cleared"):
		a.Detection = fmt.Sprintf("cleared at the end of the first window back under the line (%s)", lag)
	case node < 0 && n >= 0:
		a.Detection = fmt.Sprintf("fired %s after the start of its window; node %d was not above %.0f%%", lag, n, 100*NodeCPULine)
	case node < 0:
		a.Detection = fmt.Sprintf("fired %s after the start of its window; no node was above %.0f%% before it", lag, 100*NodeCPULine)
	default:
		a.Detection = fmt.Sprintf("fired %s after %s passed %.0f%% at %s", lag, subject, 100*NodeCPULine, a.Onset)
	}
}

// movedIn reports whether shard s moved to another node during window w, and the node
// it was on when the window began.
func movedIn(r *sim.Result, s, w int) (from int, ok bool) {
	start, end := sim.Time(w)*r.Window, sim.Time(w+1)*r.Window
	from = r.Shards[s].Home
	for _, m := range r.Shards[s].Moves {
		if m.At >= end {
			break
		}
		if m.At >= start {
			return from, true
		}
		from = m.Node
	}
	return from, false
}

func ratioWords(l, med float64) string {
	if med < 0.0005 {
		// The median prints as 0.0%: a ratio to it (10,669x) says nothing the two loads
		// do not.
		return ""
	}
	return fmt.Sprintf(" (%.1fx)", l/med)
}
