package operator_test

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

var keyDesign = mechtest.OneFieldKey

const actionAt = 4500 * sim.Millisecond

// actionModel: one single-core node offered 1,500/s (Poisson) of constant 1 ms reads, for
// 10 s; at 4.5 s an operator gives it 4 cores.
func actionModel() *sim.Model {
	return &sim.Model{
		Seed: 19, Duration: 10 * sim.Second, Window: sim.Second, Network: 200 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "get", Op: sim.Read, Cost: sim.Millisecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(mechtest.Steady(1500)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
		}},
		Mechanisms: []sim.Setting{operator.Actions{{At: actionAt, Change: operator.Cores, Node: 0, Cores: 4, Text: "scale up"}}},
	}
}

// TestActionSetCores. Seed 19; 15,000 reads. Before the action the node gets 1,500/s with
// capacity 1,000/s: its backlog grows by ~500/s, to ~2,250 at 4.5 s (window 4's max queue at
// least 1,500). Window 3 is saturated throughout, so its busy time is exactly its capacity,
// 1 s. With 4 cores it drains at 2,500/s (within ~1 s), and from window 7 on it is an
// M/D/4 at load 0.375 whose queue stays under 50. NodeCapacity is exact: 1 s of core time
// per window before, 4 s after, and in window 4, 1 × 0.5 s + 4 × 0.5 s = 2.5 s. Events hold
// the action at 4.5 s.
func TestActionSetCores(t *testing.T) {
	r := sim.Run(actionModel())
	mechtest.Conserve(t, r)
	aw := int(actionAt / r.Window)
	for w := 0; w < r.Windows; w++ {
		start, end := sim.Time(w)*r.Window, sim.Time(w)*r.Window+r.WindowSpan(w)
		var want sim.Time
		switch {
		case w < aw:
			want = end - start
		case w == aw:
			want = 1*(actionAt-start) + 4*(end-actionAt)
		default:
			want = 4 * (end - start)
		}
		if got := r.NodeCapacity[w]; got != want {
			t.Errorf("window %d: capacity %v, want %v", w, got, want)
		}
	}
	t.Logf("max queue per window %v; busy per window %v", r.NodeMaxQueue, r.NodeBusy)
	after := int32(0)
	for w := 6; w < r.Windows; w++ {
		after = max(after, r.NodeMaxQueue[w])
	}
	docmark.Figures(t, "../../docs/mitigations.md", "setcores", map[string]string{"setcores.backlog": units.Count(int64(r.NodeMaxQueue[aw])), "setcores.after": fmt.Sprint(after)})
	if r.NodeBusy[3] != sim.Second {
		t.Errorf("window 3: busy %v, want exactly 1s (saturated)", r.NodeBusy[3])
	}
	if r.NodeMaxQueue[aw] < 1500 {
		t.Errorf("window %d: max queue %d, want the backlog of ~2,250", aw, r.NodeMaxQueue[aw])
	}
	for w := 1; w < aw; w++ {
		if r.NodeMaxQueue[w] <= r.NodeMaxQueue[w-1] {
			t.Errorf("window %d: max queue %d did not grow from %d while overloaded", w, r.NodeMaxQueue[w], r.NodeMaxQueue[w-1])
		}
	}
	for w := 7; w < r.Windows; w++ {
		if r.NodeMaxQueue[w] >= 50 {
			t.Errorf("window %d: max queue %d, want the backlog drained (< 50)", w, r.NodeMaxQueue[w])
		}
	}
	if len(r.Events) != 1 || r.Events[0] != (sim.Event{At: actionAt, Kind: sim.EventAction, Shard: -1, Text: "scale up"}) {
		t.Errorf("events %v, want the one action at %v", r.Events, actionAt)
	}
	if r.Nodes[0].Cores != 4 {
		t.Errorf("node ends with %d cores, want 4", r.Nodes[0].Cores)
	}
}

// TestClientActionAtClientTime: with 100 ms of network each way, a queueing limit of one
// request per 2 s holds the writes issued at 100, 200, ... ms (10/s, a constant 1 ns on one
// 8-core node, seed 1, 2 s); the limit is lifted at 500 ms, a client's action. A held
// request leaves the client at 500 ms, reaches the node at 600 ms and its answer is back
// at 700 ms: the one issued at 100 ms takes 600 ms (before the fix, the lift took effect
// one network delay early: 500 ms). The action is recorded at 500 ms.
func TestClientActionAtClientTime(t *testing.T) {
	m := &sim.Model{
		Seed: 1, Duration: 2 * sim.Second, Window: sim.Second, Network: 100 * sim.Millisecond,
		Nodes: []sim.Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: sim.Nanosecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewUniformArrivals(mechtest.Steady(10)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
			Client:   sim.Client{Limit: &sim.Limit{Rate: 0.5, Burst: 1, Queue: true}},
		}},
		Mechanisms: []sim.Setting{operator.Actions{{At: 500 * sim.Millisecond, Change: operator.ClientLimit, Client: true, Stream: 0, Text: "lift"}}},
	}
	r := sim.Run(m)
	mechtest.Conserve(t, r)
	if got, want := r.Streams[0].LatencyMax, 600*sim.Millisecond+2*sim.Nanosecond; got < 600*sim.Millisecond || got > want {
		t.Errorf("longest latency %v, want 600 ms (held from 100 to 500 ms, then 2 x 100 ms of network)", got)
	}
	if len(r.Events) != 1 || r.Events[0].At != 500*sim.Millisecond {
		t.Errorf("events %+v, want the lift at 500 ms", r.Events)
	}
}

// allocModel: 2 single-core nodes, 4 shards (modulo), offered 4,000 writes/s (Poisson, a
// constant 100 µs: load 0.2 a core) over uniform keys. The operator bounds node 0's queue
// at 1 s, puts a queueing client limit of 10,000/s (burst 1) on the writes at 2 s, a
// client's action, and gives node 1 a second core at 3 s.
func allocModel(dur sim.Time) *sim.Model {
	return &sim.Model{
		Seed: 22, Duration: dur, Window: dur, Network: 200 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}}, ShardNode: []int{0, 1, 0, 1},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(mechtest.Steady(4000)),
			Fields:   []workload.Generator{workload.NewUniform(100_000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(4), false),
		}},
		Mechanisms: []sim.Setting{operator.Actions{
			{At: sim.Second, Change: operator.QueueLimit, Node: 0, QueueLimit: 50, Text: "bound node 0's queue"},
			{At: 2 * sim.Second, Change: operator.ClientLimit, Client: true, Stream: 0, Limit: &sim.Limit{Rate: 10_000, Burst: 1, Queue: true}, Text: "cap the writes"},
			{At: 3 * sim.Second, Change: operator.Cores, Node: 1, Cores: 2, Text: "scale up node 1"},
		}},
	}
}

// TestNoAllocs: once the actions have changed the cluster (a node's queue limit, the
// writes' client limit, a node's cores), allocModel's event loop allocates nothing in
// steady state: the writes go through the client's limit, queueing behind it. (An action
// itself may allocate, as the timeline of events grows: it is the operator's, not a
// request's.) Its run sees the three actions, in time, and ends with node 1's 2 cores.
func TestNoAllocs(t *testing.T) {
	mechtest.NoAllocs(t, allocModel(100*sim.Second))
	r := sim.Run(allocModel(4 * sim.Second))
	mechtest.Conserve(t, r)
	if len(r.Events) != 3 || r.Events[0].At != sim.Second || r.Events[1].At != 2*sim.Second || r.Events[2].At != 3*sim.Second {
		t.Errorf("events %+v, want the three actions at 1, 2 and 3 s", r.Events)
	}
	if r.Nodes[0].Cores != 1 || r.Nodes[1].Cores != 2 {
		t.Errorf("nodes end with %d and %d cores, want 1 and 2", r.Nodes[0].Cores, r.Nodes[1].Cores)
	}
}
