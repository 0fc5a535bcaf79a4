package sim_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// addStart is a ServiceStart that adds d to the service of every subrequest a core of
// node 0 takes, and keeps the longest queue it was told of.
type addStart struct {
	d      sim.Time
	queued int
}

func (h *addStart) On(c sim.Core) { c.StartSubs(h) }
func (*addStart) Note() string    { return "" }
func (*addStart) Waiter() float64 { return 0 }
func (h *addStart) Start(_ sim.Core, _ sim.Time, n int, _ int32, queued int) sim.Time {
	if n != 0 {
		return 0
	}
	h.queued = max(h.queued, queued)
	return h.d
}

// TestServiceStartChain: two ServiceStart hooks each lengthen the service of every
// subrequest on node 0 (by 1 ms and 2 ms); reads at 500 a second on 64 cores never queue,
// so a read of node 0 takes its 0.1 ms of service and 3 ms more, exactly, and one of node 1
// its service alone. The added time is CPU: node 0's busy time is the same run's without
// the hooks plus 3 ms a subrequest it served (within 0.1%, the service cut at the run's
// end), and node 1's is unchanged. Seed 1, 3 s, about 1,500 reads.
func TestServiceStartChain(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	model := func(settings ...sim.Setting) *sim.Model {
		return &sim.Model{
			Seed: 1, Duration: 3 * sim.Second, Window: sim.Second,
			Nodes: []sim.Node{{Cores: 64}, {Cores: 64}}, ShardNode: []int{0, 1},
			Streams: []sim.Stream{{
				Name: "r", Op: sim.Read, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
				Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 500}}),
				Fields:   []workload.Generator{workload.NewUniform(1000)},
				Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(2), false),
			}},
			Mechanisms: settings,
		}
	}
	first, second := &addStart{d: sim.Millisecond}, &addStart{d: 2 * sim.Millisecond}
	r, base := sim.Run(model(first, second)), sim.Run(model())
	st := &r.Streams[0]
	if st.Completed != st.Offered || st.Completed < 1000 {
		t.Fatalf("%d of %d reads completed: want all, over 1,000", st.Completed, st.Offered)
	}
	if want := 100*sim.Microsecond + 3*sim.Millisecond; st.LatencyMax != want {
		t.Errorf("longest read %v, want %v (node 0's: its service and both hooks')", st.LatencyMax, want)
	}
	if r.Shards[1].Ops == 0 || r.Nodes[1].Busy != base.Nodes[1].Busy {
		t.Errorf("node 1: busy %v after %d reads, want the run's without hooks, %v", r.Nodes[1].Busy, r.Shards[1].Ops, base.Nodes[1].Busy)
	}
	want := float64(base.Nodes[0].Busy + sim.Time(r.Shards[0].Ops)*3*sim.Millisecond)
	if got := float64(r.Nodes[0].Busy); math.Abs(got-want)/want > 0.001 {
		t.Errorf("node 0: busy %v, want %v, the added time counted as CPU", sim.Time(got), sim.Time(want))
	}
	if first.queued != 0 || second.queued != 0 {
		t.Errorf("queues seen %d and %d, want 0 (64 cores: nothing waits)", first.queued, second.queued)
	}
}
