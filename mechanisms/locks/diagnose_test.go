package locks

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

func f64(x float64) *float64 { return &x }

// lockedStream is a stream that sends 800 writes a second to one row whose lock is held
// 1 ms a write: its lock is offered 0.8 of what it passes.
func lockedStream() metrics.Stream {
	return metrics.Stream{Name: "increment", HotShard: -1,
		Locks: &metrics.LockWaits{HoldMean: f64(1), HotRate: 800, Busy: 0.8}}
}

// TestHotRowLock: a row's lock offered 0.8 of what it passes is hot (the bar is
// hotLockLoad, 0.7), and needs ceil(2 × 0.8) = 2 rows to stay under half busy; one at 0.5
// is not, unless writes failed waiting for it; a job queue's head gets SKIP LOCKED as its
// cure.
func TestHotRowLock(t *testing.T) {
	st := lockedStream()
	d, ok := hotRowLock(&st)
	if !ok || d.Kind != "hot_row_lock" || d.Evidence["rows_needed"] != 2 || d.Evidence["lock_load"] != 0.8 || !strings.Contains(d.Message, "write-shard it over at least 2 rows") {
		t.Errorf("lock at 80%%: %v %+v, want hot_row_lock over 2 rows", ok, d)
	}
	st.Locks.Busy = 0.5
	if _, ok := hotRowLock(&st); ok {
		t.Error("lock at 50%, no failure: diagnosed, want no finding under hotLockLoad")
	}
	st.Failures[metrics.Lock] = 3
	if d, ok := hotRowLock(&st); !ok || !strings.Contains(d.Message, "3 writes failed waiting longer than lock_timeout") {
		t.Errorf("lock at 50%%, 3 failures: %v %q, want hot_row_lock naming the failures", ok, d.Message)
	}
	st.Locks.QueueHead = true
	if d, ok := hotRowLock(&st); !ok || !strings.Contains(d.Message, "SKIP LOCKED") {
		t.Errorf("a queue's head: %v %q, want SKIP LOCKED as the cure", ok, d.Message)
	}
}

// TestHotRowLockRegistered: the rule is registered as a stream rule, so that a variant
// whose stream's row lock is hot gets hot_row_lock from diagnose.Of, with the stream's
// hot shard as evidence when it has one.
func TestHotRowLockRegistered(t *testing.T) {
	st := lockedStream()
	st.HotShard = 0
	got := mechtest.Diagnose(st, metrics.Stream{Name: "read", HotShard: -1})
	if len(got) != 1 || got[0].Kind != "hot_row_lock" || got[0].Subject != "increment" || got[0].Evidence["shard"] != 0 {
		t.Errorf("diagnoses %+v, want hot_row_lock for increment on shard 0", got)
	}
}

// TestLockTimeoutAlert: lock_timeout is registered (its place among the others is
// scenarios' TestDiagnosisOrder's) and fires in a window whose writes waited longer than lock_timeout, timed against the node of the row
// writes queued for most (shard 1's, node 2, until it moved to node 0 at 90 s); a window
// without one does not fire, and a stream without hot rows is timed cluster-wide.
func TestLockTimeoutAlert(t *testing.T) {
	if kinds := diagnose.AlertKinds(); !slices.Contains(kinds, "lock_timeout") {
		t.Errorf("stream alerts %q, want lock_timeout registered", kinds)
	}
	r := &sim.Result{Window: sim.Minute, Shards: []sim.ShardResult{{Home: 0}, {Home: 2, Moves: []sim.ShardMove{{At: 90 * sim.Second, Node: 0}}}}}
	r.Streams = []sim.StreamResult{{Name: "increment", Win: make([]sim.WindowLatency, 3)}}
	st, n := &r.Streams[0], &metrics.LockCounts{Hot: []sim.KeyCount{{Shard: 1}}}
	st.Win[0].Failed[TimedOut], st.Win[2].Failed[TimedOut] = 3, 1
	r.Reports = []any{&metrics.LockResult{Streams: []*metrics.LockCounts{n}}}
	if msg, node, ok := lockTimeout(r, st, 0); !ok || node != 2 || msg != "increment: 3 writes waited longer than lock_timeout for a row lock in the window" {
		t.Errorf("window 0: %q on node %d (%v), want 3 writes on node 2", msg, node, ok)
	}
	if _, _, ok := lockTimeout(r, st, 1); ok {
		t.Error("window 1, no timeout: fired")
	}
	if _, node, ok := lockTimeout(r, st, 2); !ok || node != 0 {
		t.Errorf("window 2: node %d (%v), want node 0, where shard 1 moved", node, ok)
	}
	n.Hot = nil
	if _, node, _ := lockTimeout(r, st, 0); node != -1 {
		t.Errorf("no hot row: node %d, want -1 (cluster-wide)", node)
	}
}
