package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// HotLoad is the hot-shard detector's line: 90% of its node's cores (and the line above
// which a shard's bar stands out in the charts).
const HotLoad = 0.9

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

// Alert is one entry of the alert timeline.
type Alert struct {
	At      string  `json:"at"`
	AtS     float64 `json:"at_s"`
	Kind    string  `json:"kind"`
	Subject string  `json:"subject"`
	Message string  `json:"message"`
	// Onset is the start of the window in which the trouble the alert reports began (see
	// Alerts for the line per kind); DetectedAfterS is the time from there to the alert,
	// and Detection says it in words.
	Onset          string  `json:"onset"`
	OnsetS         float64 `json:"onset_s"`
	DetectedAfterS float64 `json:"detected_after_s"`
	Detection      string  `json:"detection"`
	// FineAt, for a latency alert inside a detail range, is the end of the first fine
	// window whose p99 passed the threshold (metrics.FineCrossing); absent otherwise.
	FineAt  string   `json:"fine_at,omitempty"`
	FineAtS *float64 `json:"fine_at_s,omitempty"`
}

// Lines are the lines a streamed run's digest judges its shards by (metrics.DigestLines):
// the hot-shard detector's and the placement rule's.
var Lines = metrics.DigestLines{HotLoad: HotLoad, HotRatio: hotRatio, CoLoad: PlacementShardLoad, CoRatio: SkewRatio}

// Alerts derives a run's alert timeline from its windows: hot-shard and node CPU alerts and
// their clearing, the first window in which each stream's p99 crosses each of its SLO
// thresholds, and the first window in which a stream's requests were rejected, throttled
// or timed out. Each alert carries its detection lag. It is sorted by time.
func Alerts(sc *metrics.Scenario, v *metrics.Variant, r *sim.Result) []Alert {
	t := &timeline{r: r, sc: sc, on: newOnsets(sc, r)}
	t.loads()
	for i := range r.Streams {
		t.stream(i, v.Stream(i))
	}
	slices.SortStableFunc(t.out, func(a, b Alert) int { return cmp.Compare(a.AtS, b.AtS) })
	return t.out
}

// Saturated is the alert of a run whose backlog diverged: at the moment it stopped, timed
// against the first node to pass NodeCPULine.
func Saturated(sc *metrics.Scenario, r *sim.Result) Alert {
	a := Alert{At: units.Clock(sc.Start, r.SaturatedAt, units.TimeOfDay), AtS: units.Round(r.SaturatedAt.Seconds(), 6), Kind: "saturated", Subject: "cluster",
		Message: fmt.Sprintf("%s waiting: the offered load exceeds what the nodes serve; the run stopped here", metrics.Plural(int64(r.Backlog), "subrequest"))}
	if r.Window > 0 && r.Windows > 0 {
		newOnsets(sc, r).time(&a, min(int(r.SaturatedAt/r.Window), r.Windows-1), -1)
	}
	return a
}

// timeline gathers a run's alerts.
type timeline struct {
	r   *sim.Result
	sc  *metrics.Scenario
	on  *onsets
	out []Alert
}

// add raises an alert at the end of window w about node (cluster-wide when node < 0).
func (t *timeline) add(w int, kind, subject, msg string, node int) {
	at := min(sim.Time(w+1)*t.r.Window, t.r.Duration)
	a := Alert{At: units.Clock(t.sc.Start, at, units.TimeOfDay), AtS: at.Seconds(), Kind: kind, Subject: subject, Message: msg}
	t.on.time(&a, w, node)
	t.out = append(t.out, a)
}

// shardChange is a shard becoming hot or cooling down in a window.
type shardChange struct {
	s, node int
	l, med  float64
	now     bool
}

// loads raises the hot-shard and node CPU alerts, window by window. A run stopped early
// (saturated or interrupted) covers no time after Elapsed: its later windows have no span
// and no load, which is not a load that cleared.
func (t *timeline) loads() {
	r := t.r
	hot := make([]bool, len(r.Shards))
	loads := make([]float64, len(r.Shards))
	cpu := make([]bool, len(r.Nodes))
	d := metrics.DigestOf(r)
	if d != nil {
		loads, hot = nil, nil // a streamed run's digest found its changes (metrics.HotChange)
	}
	next := 0
	for w := 0; w < r.Windows && r.WindowSpan(w) > 0; w++ {
		changes := hotChanges(r, w, loads, hot)
		for ; d != nil && next < len(d.Hot) && d.Hot[next].Window == w; next++ {
			c := &d.Hot[next]
			changes = append(changes, shardChange{c.Shard, c.Node, c.Load, c.Median, c.Hot})
		}
		for _, c := range changes {
			t.shardChanged(w, c)
		}
		t.nodes(w, cpu)
	}
}

// hotChanges returns the shards whose hotness changed in window w; hot holds each
// shard's state and loads is room for the window's loads.
func hotChanges(r *sim.Result, w int, loads []float64, hot []bool) []shardChange {
	for s := range loads {
		loads[s] = r.ShardUtilization(w, s)
	}
	med := metrics.Median(loads)
	var changes []shardChange
	for s, l := range loads {
		now := l > HotLoad && l > hotRatio*med
		if now == hot[s] {
			continue
		}
		hot[s] = now
		changes = append(changes, shardChange{s, r.ShardNodeAt(s, w), l, med, now})
	}
	return changes
}

// shardChanged raises hot_shard or hot_shard_cleared for a change in window w.
func (t *timeline) shardChanged(w int, c shardChange) {
	s, l, med, node := c.s, c.l, c.med, c.node
	from, moved := movedIn(t.r, s, w)
	name := metrics.ShardName(metrics.IndexLayouts(t.r), s) // INDEX/K for an index's shard
	switch {
	case c.now && moved:
		// The window's load was served on two nodes: neither need have passed the CPU
		// line, so say where it was served rather than blame node `node` alone.
		t.add(w, "hot_shard", "shard "+name, fmt.Sprintf("shard %s (moved from node %d to node %d during the window) at %s of a node's cores, served partly on each; median shard %s%s",
			name, from, node, units.Percent(l, 1), units.Percent(med, 1), ratioWords(l, med)), node)
		if a := &t.out[len(t.out)-1]; strings.Contains(a.Detection, "was not above") {
			a.Detection = fmt.Sprintf("fired %s after the start of its window; neither node %d nor node %d was above %.0f%%: the shard's load was split between them by its move",
				units.Duration(sim.Time(a.DetectedAfterS*float64(sim.Second))), from, node, 100*NodeCPULine)
		}
	case c.now:
		t.add(w, "hot_shard", "shard "+name, fmt.Sprintf("shard %s (node %d) at %s of its node's cores; median shard %s%s",
			name, node, units.Percent(l, 1), units.Percent(med, 1), ratioWords(l, med)), node)
	default:
		t.add(w, "hot_shard_cleared", "shard "+name, fmt.Sprintf("shard %s back to %s (median %s)", name, units.Percent(l, 1), units.Percent(med, 1)), node)
	}
}

// nodes raises node_cpu and node_cpu_cleared in window w; cpu holds each node's state.
func (t *timeline) nodes(w int, cpu []bool) {
	for n := range t.r.Nodes {
		u := t.r.NodeUtilization(w, n)
		switch {
		case !cpu[n] && u > NodeCPULine:
			cpu[n] = true
			t.add(w, "node_cpu", fmt.Sprintf("node %d", n), fmt.Sprintf("node %d at %s of its cores", n, units.Percent(u, 1)), n)
		case cpu[n] && u < nodeCPUClear:
			cpu[n] = false
			t.add(w, "node_cpu_cleared", fmt.Sprintf("node %d", n), fmt.Sprintf("node %d back to %s", n, units.Percent(u, 1)), n)
		}
	}
}

// streamAlerts is which of a stream's first failures have been raised: mech[k] the
// registered alert k's (RegisterStreamAlert).
type streamAlerts struct {
	rejected, timedOut bool
	mech               []bool
}

// stream raises stream i's alerts: its first rejections, the mechanisms' alerts (a
// partition limit's throttling, a row lock's timeouts), its first timeouts, and its p99
// crossing each SLO line.
func (t *timeline) stream(i int, info metrics.StreamInfo) {
	st := &t.r.Streams[i]
	seen := streamAlerts{mech: make([]bool, len(rankedAlerts))}
	next := 0
	for w := 0; w < t.r.Windows && w < len(st.Win); w++ {
		t.failures(w, st, info, &seen)
		if st.Win[w].Completed > 0 {
			next = t.latency(w, i, info.SLO, next)
		}
	}
}

// failures raises the first alert of each failure cause of stream st in window w.
func (t *timeline) failures(w int, st *sim.StreamResult, info metrics.StreamInfo, seen *streamAlerts) {
	win := &st.Win[w]
	if n := win.Errors - win.TimedOut - win.Failed.Sum(); n > 0 && !seen.rejected {
		seen.rejected = true
		why := "a node's queue is full"
		if st.Limited > 0 {
			why = "a node's queue is full, or the client's rate limit"
		}
		t.add(w, "errors", st.Name, fmt.Sprintf("%s: %s rejected in the window (%s)", st.Name, metrics.Plural(n, "request"), why), -1)
	}
	for k, a := range rankedAlerts {
		if seen.mech[k] {
			continue
		}
		if msg, node, ok := a.it(t.r, st, w); ok {
			seen.mech[k] = true
			t.add(w, a.name, st.Name, msg, node)
		}
	}
	if win.TimedOut > 0 && !seen.timedOut {
		seen.timedOut = true
		msg := fmt.Sprintf("%s: %s timed out in the window", st.Name, metrics.Plural(win.TimedOut, "request"))
		if info.RetryLabel != "" && win.Retries > 0 {
			msg += fmt.Sprintf("; %s %s (retries) sent in it", units.Count(win.Retries), info.RetryLabel)
		}
		t.add(w, "timed_out", st.Name, msg, -1)
	}
}

// latency raises stream i's latency alerts in window w, for each SLO line from next on
// that its p99 passed, and returns the next line to watch.
func (t *timeline) latency(w, i int, slo []sim.Time, next int) int {
	r, st := t.r, &t.r.Streams[i]
	p99 := st.Win[w].QuantileMillis(0.99)
	for ; next < len(slo) && p99 > slo[next].Millis(); next++ {
		msg := fmt.Sprintf("%s p99 crossed %s (%s ms in the window)", st.Name, slo[next], metrics.Ms(p99))
		end := min(sim.Time(w+1)*r.Window, r.Duration)
		fine, ok := metrics.FineCrossing(r, i, slo[next].Millis(), 0)
		ok = ok && fine <= end
		if ok {
			msg = fmt.Sprintf("%s p99 crossed %s (%s ms in the window; in %s windows, at %s)", st.Name, slo[next], metrics.Ms(p99), r.Detail.Window, units.Clock(t.sc.Start, fine, units.TimeOfDay))
		}
		t.add(w, "latency", st.Name, msg, -1)
		if ok {
			a := &t.out[len(t.out)-1]
			secs := fine.Seconds()
			a.FineAt, a.FineAtS = units.Clock(t.sc.Start, fine, units.TimeOfDay), &secs
		}
	}
	return next
}

// onsets finds where trouble began: over[w*nodes+n] is node n above NodeCPULine in window w.
type onsets struct {
	sc   *metrics.Scenario
	r    *sim.Result
	over []bool
}

// newOnsets finds, for every window, the nodes above NodeCPULine.
func newOnsets(sc *metrics.Scenario, r *sim.Result) *onsets {
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
