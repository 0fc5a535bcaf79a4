package locks

import (
	"fmt"
	"math"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Row locks' diagnosis rule, hot_row_lock (docs/detection.md), on each locked stream's
// figures; it is a stream rule, applied before every other rule. Their alert, lock_timeout
// (docs/detection.md, "Alerts"): the first window in which a stream's writes failed
// waiting for a row's lock.

// hotLockLoad is the load of a row's lock from which it is a hotspot
// (diagnose.HotQueueLoad).
const hotLockLoad = diagnose.HotQueueLoad

// alertRank places lock_timeout among a stream's alerts the mechanisms register: after a
// partition limit's throttled (100).
const alertRank = 200

func init() {
	diagnose.RegisterStreamRule(hotRowLocks)
	diagnose.RegisterStreamAlert(alertRank, "lock_timeout", lockTimeout)
}

// lockTimeout fires in a window with writes of st that waited longer than lock_timeout,
// timed against lockNode.
func lockTimeout(r *sim.Result, st *sim.StreamResult, w int) (string, int, bool) {
	n := st.Win[w].Failed[TimedOut]
	if n == 0 {
		return "", -1, false
	}
	return fmt.Sprintf("%s: %s waited longer than lock_timeout for a row lock in the window", st.Name, metrics.Plural(n, "write")), lockNode(r, st, w), true
}

// lockNode is the node a lock timeout is timed against: that of the row writes of st (one
// of r's streams) queued for most (a node elsewhere passing 90% has nothing to do with a
// lock's queue); -1 for none.
func lockNode(r *sim.Result, st *sim.StreamResult, w int) int {
	var n *metrics.LockCounts
	for i := range r.Streams {
		if &r.Streams[i] == st {
			n = metrics.LockCountsOf(r, i)
		}
	}
	if n != nil && len(n.Hot) > 0 && n.Hot[0].Shard >= 0 && n.Hot[0].Shard < len(r.Shards) {
		return r.ShardNodeAt(n.Hot[0].Shard, w)
	}
	return -1
}

// hotRowLocks applies hot_row_lock to a locked stream's figures: it explains the stream, so
// neither a hot key's nor a low cardinality's remedy is offered for it. The row's shard is
// hot, if it is, for the same reason: the row's writes.
func hotRowLocks(v diagnose.Finding, st *metrics.Stream) {
	d, ok := hotRowLock(st)
	if !ok {
		return
	}
	v.ExplainStream(st.Name)
	if s := v.Run().Stream(st.Name); s != nil && s.HotShard >= 0 {
		v.Explain(s.HotShard)
		d.Evidence["shard"] = float64(s.HotShard)
	}
	v.Add(d)
}

// hotRowLock finds a hot locked row: a stream whose hottest row's lock is offered
// hotLockLoad of its capacity or more (one row passes 1/hold writes a second), or
// whose writes failed waiting for it. A row cannot be split, cached or moved away from its
// lock: its writes must be spread over several rows, enough of them that each lock stays
// under half busy.
func hotRowLock(st *metrics.Stream) (diagnose.Diagnosis, bool) {
	l := st.Locks
	failed := st.Failures[metrics.Lock]
	if l == nil || l.HoldMean == nil || (l.Busy < hotLockLoad && failed == 0) {
		return diagnose.Diagnosis{}, false
	}
	rows := max(2, int(math.Ceil(2*l.Busy-1e-9)))
	capRate := 1000 / *l.HoldMean
	msg := fmt.Sprintf("%s sends %s writes/s to one row, whose lock (held %s ms a write) passes at most %s/s: it is offered %s of that",
		st.Name, units.Count(int64(math.Round(l.HotRate))), metrics.Ms(*l.HoldMean), units.Count(int64(math.Round(capRate))), units.Percent(l.Busy, 1))
	if failed > 0 {
		msg += fmt.Sprintf(", and %s writes failed waiting longer than lock_timeout", units.Count(failed))
	}
	if l.QueueHead {
		msg += queueCure(st.Name)
	} else {
		msg += fmt.Sprintf("; more cores, a split or a directory cannot help one row: write-shard it over at least %d rows (salt the key, or keep %d counter rows and sum them on read), so that each row's lock stays under half busy", rows, rows)
	}
	return diagnose.Diagnosis{Kind: "hot_row_lock", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"writes_per_s": units.Round(l.HotRate, 1), "hold_ms": units.Round(*l.HoldMean, 4), "lock_load": units.Round(l.Busy, 4), "lock_failures": float64(failed), "rows_needed": float64(rows)}}, true
}

// queueCure is hot_row_lock's remedy for a job queue's claims, whose hot row is a queue's
// head: the workers wait for the oldest job in turn, so more workers or cores add nothing.
func queueCure(stream string) string {
	return fmt.Sprintf("; that row is a queue's head (its oldest job), and each of %s's claims waits for it in turn, so more workers or cores add nothing: claim the oldest job nobody holds (FOR UPDATE SKIP LOCKED: skip_locked = true), or shard the queue (a queue shard in the key, each with its own head)", stream)
}
