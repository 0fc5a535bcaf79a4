package sim

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestQueueHeldThroughQuietWindows: ten writes arrive in the first second of a 5 s run (one
// every 100 ms until 950 ms) at one single-core node, each taking 10 s to serve, so nine of
// them wait, and the queue does not change again until the first completes, after the
// run's end. The four
// quiet windows must still report the nine waiting (the backlog they held), for the node
// and for its one shard, however the engine carries queue lengths from window to window.
func TestQueueHeldThroughQuietWindows(t *testing.T) {
	m := &Model{
		Seed: 1, Duration: 5 * Second, Window: Second,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: 10 * Second, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 10}, {At: int64(950 * Millisecond), Rate: 10}, {At: int64(950 * Millisecond), Rate: 0}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
		}},
	}
	r := Run(m)
	if got := r.Streams[0].Offered; got != 10 {
		t.Fatalf("%d writes offered, want 10", got)
	}
	for w := range r.Windows {
		if q := r.NodeMaxQueue[w]; q != 9 {
			t.Errorf("window %d: node's longest queue %d, want 9", w, q)
		}
		if q := r.ShardMaxQueue[w]; q != 9 {
			t.Errorf("window %d: shard's most waiting %d, want 9", w, q)
		}
	}
}

// TestOfferedByIssueWindow: writes arrive evenly at 10/s for 5 s (uniform arrivals: one every
// 100 ms) at one single-core node that takes 2.5 s over each, so nearly all of them are
// still queued at the end. Each 1 s window must count the 10 requests issued in it as
// offered, whatever happened to them later, and the windows must add up to the run's
// total (no warmup); only the one write answered by 2.5 s counts as completed.
func TestOfferedByIssueWindow(t *testing.T) {
	m := &Model{
		Seed: 1, Duration: 5 * Second, Window: Second,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: 2500 * Millisecond, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 10}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
		}},
	}
	r := Run(m)
	var sum, done int64
	for w, wl := range r.Streams[0].Win {
		if wl.Offered != 10 {
			t.Errorf("window %d: %d offered, want 10", w, wl.Offered)
		}
		sum += wl.Offered
		done += wl.Completed
	}
	if sum != r.Streams[0].Offered {
		t.Errorf("windows offer %d in all, the run %d", sum, r.Streams[0].Offered)
	}
	if done != 1 {
		t.Errorf("%d completed in the windows, want 1 (the first write, answered at 2.5 s)", done)
	}
}
