// Package split is automatic shard splits (docs/mitigations.md, "Automatic shard splits"):
// at the end of every window a shard whose load passed the policy's, which gained its rows,
// or which a partition limit throttled in two windows running (split_for_heat) splits at
// the median of its recent keys through the model's keyspace.Splitter, and the new shard
// moves to the least loaded node after the move time. Its keys ([keyspace.split], and
// split_for_heat of [keyspace.limits]) are resolved in keys.go into scenario.SplitPolicy,
// which the rest of the scenario reads; its engine side is a sim.Setting that compile gives each model with the model's own
// splitter, which adds shards to the table (sim.ShardGrower) and checks them as each
// window closes (sim.WindowWatcher).
package split

import (
	"fmt"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Split is the setting of a model's automatic splits: the policy, and the splitter every
// planner of the model routes through, which the splits cut. A model has its own (the
// splitter keeps the splits made), and the setting is used by one run.
type Split struct {
	Policy   scenario.SplitPolicy
	Splitter *keyspace.Splitter
}

// MaxShards is the most shards the table may reach: the splitter's bound.
func (s Split) MaxShards() int { return s.Splitter.Shards() }

// Couples is why a run with splits stays on one engine.
func (Split) Couples() string { return "shard splits move shards between nodes" }

// Note is "": explain says what its figures leave out of the splits itself (compile).
func (Split) Note() string { return "" }

// Waiter is 0: a split holds nothing back.
func (Split) Waiter() float64 { return 0 }

// On remembers the recent keys of every shard's point requests, checks the shards as each
// window ends and moves the new shards when their move time comes.
func (s Split) On(c sim.Core) {
	n := c.Shards()
	st := &state{sp: s.Splitter, pol: s.Policy, recent: make([][]keyspace.Key, n), seen: make([]int, n),
		rows: make([]int64, n), splitIn: make([]int, n), buf: make([]keyspace.Key, 0, recentKeys)}
	for i := range st.splitIn {
		st.splitIn[i] = -1
	}
	c.WatchSubs(st)
	c.WatchWindows(st)
	c.Register(st, evMove)
}

// evMove is a new shard's move to its own node (idx: the shard).
var evMove = sim.NewEventKind()

// recentKeys is how many of its latest keys each shard remembers, to split at their median.
const recentKeys = 64

// state is a run's splits: each shard's recent keys, the rows it took from or gave to a
// split, and the window that last split it.
type state struct {
	sp     *keyspace.Splitter
	pol    scenario.SplitPolicy
	recent [][]keyspace.Key
	seen   []int // keys seen per shard since its last split
	// rows is what a shard's rows (sim.ShardResult.Rows, what it gained during the run)
	// gained or lost at splits: the parent and the new shard each keep half of the count.
	rows []int64
	// splitIn is the window at whose end the shard last split (-1: never): a throttled
	// shard's run of windows starts anew after its split.
	splitIn []int
	buf     []keyspace.Key
}

// Issue remembers the key of a point request issued into a slot that visits one shard.
func (s *state) Issue(c sim.Core, stream int, _ int32) { s.observe(c, stream) }

// NewSub remembers the key of a solo's request (a point request that visits one shard,
// made with its one subrequest); a slotted request's key was seen at its issue.
func (s *state) NewSub(c sim.Core, stream int, si int32) {
	if c.SubRequest(si) < 0 {
		s.observe(c, stream)
	}
}

// observe remembers the key point stream i's planner planned last, when it visits one
// shard.
func (s *state) observe(c sim.Core, i int) {
	v := c.Visits(i)
	if !c.Point(i) || len(v) != 1 {
		return
	}
	sh := v[0].Shard
	if s.recent[sh] == nil {
		s.recent[sh] = make([]keyspace.Key, recentKeys)
	}
	s.recent[sh][s.seen[sh]%recentKeys] = *c.LastKey(i)
	s.seen[sh]++
}

// Cause is why a shard split, as its split event holds it (sim.Event.Why), with the figure
// it read (sim.Event.Value).
type Cause uint8

const (
	Load      Cause = iota + 1 // its load in the window passed the policy's (Value: the load, 0..)
	Rows                       // it held the policy's rows (Value: its rows)
	Throttled                  // a partition limit throttled it windows running (Value: the windows)
)

// words says why a shard split for c, value being the figure c read.
func (c Cause) words(value float64) string {
	switch c {
	case Load:
		return fmt.Sprintf("its load was %.0f%% in the window", 100*value)
	case Rows:
		return fmt.Sprintf("it holds %.0f rows", value)
	case Throttled:
		return fmt.Sprintf("it was throttled %.0f windows running", value)
	}
	return ""
}

// WindowEnd checks every shard at the end of window w (the first event after it is at t):
// a shard over the load or row threshold, or throttled in two windows running, splits.
func (s *state) WindowEnd(c sim.Core, t sim.Time, w int) {
	if t >= c.Duration() {
		return // the run is over: its last window changes nothing any more
	}
	live := s.sp.Live()
	span := c.WindowSpan(w)
	for sh := 0; sh < live; sh++ {
		var why Cause
		var value float64
		if s.pol.Load > 0 {
			load := float64(c.ShardBusy(w, sh)) / (float64(span) * float64(c.NodeCores(c.ShardNode(sh))) * float64(1+c.Replicas()))
			if load > s.pol.Load {
				why, value = Load, load
			}
		}
		if rows := c.ShardOut(sh).Rows + s.rows[sh]; why == 0 && s.pol.Rows > 0 && rows >= s.pol.Rows {
			why, value = Rows, float64(rows)
		}
		if n := s.throttled(c, sh, w); why == 0 && s.pol.Throttled && n >= 2 {
			why, value = Throttled, float64(n)
		}
		if why != 0 {
			s.split(c, t, w, sh, why, value)
		}
	}
}

// throttled is how many windows running, up to w, shard sh was throttled in since it last
// split.
func (s *state) throttled(c sim.Core, sh, w int) int {
	n := c.ThrottleStreak(sh, w)
	if s.splitIn[sh] >= 0 {
		n = min(n, w-s.splitIn[sh])
	}
	return n
}

// split splits shard sh at the median of its recent keys, at the end of window w.
func (s *state) split(c sim.Core, t sim.Time, w, sh int, why Cause, value float64) {
	n := min(s.seen[sh], recentKeys)
	if n == 0 {
		return
	}
	s.buf = append(s.buf[:0], s.recent[sh][:n]...)
	ns, ok := s.sp.Split(sh, s.buf)
	if !ok {
		return
	}
	c.PlaceShard(ns, c.ShardNode(sh))
	out, child := c.ShardOut(sh), c.ShardOut(ns)
	child.Parent, child.Created = sh, t
	rows := out.Rows + s.rows[sh]
	s.rows[ns] = rows/2 - child.Rows
	s.rows[sh] -= rows / 2
	s.seen[sh], s.seen[ns] = 0, 0
	s.splitIn[sh] = w
	c.Record(sim.Event{At: t, Kind: sim.EventSplit, Shard: sh, Child: ns, Why: uint8(why), Value: value,
		Text: fmt.Sprintf("shard %d split (%s): shard %d takes the upper half of its keys", sh, why.words(value), ns)})
	c.Schedule(t+s.pol.Move, int32(ns), evMove)
}

// Handle moves new shard idx to the node with the least load in the last complete window
// (the current one at the start of the run), unless that is where it is.
func (s *state) Handle(c sim.Core, now sim.Time, idx int32) {
	if now >= c.Duration() {
		return
	}
	w := c.Window(now)
	if w < 0 {
		w = c.Windows()
	}
	w = max(w-1, 0)
	best, bestLoad := -1, 0.0
	for n := range c.Nodes() {
		load := float64(c.NodeBusy(w, n)) / float64(c.NodeCores(n))
		if best < 0 || load < bestLoad {
			best, bestLoad = n, load
		}
	}
	if best == c.ShardNode(int(idx)) {
		return
	}
	c.MoveShard(now, int(idx), best)
}

// WrapUp cuts the shard results to the shards that exist at the end.
func (s *state) WrapUp(c sim.Core) { c.KeepShards(s.sp.Live()) }
