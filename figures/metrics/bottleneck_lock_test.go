package metrics_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// These cases run row locks (mechanisms/locks), whose diagnosis rule reads metrics: they
// are an external test, so that the test binary does not import metrics twice.

// lockRun is one key written by Poisson writes at rate a second, each holding the row's
// lock for a constant hold, on 8 cores whose work (0.1 ms a write) leaves them idle; lock
// timeout to (0: none). Seed 3, 10 s after a 1 s warmup.
func lockRun(rate float64, hold, to sim.Time) *metrics.Run {
	w := sim.Stream{Name: "upd", Op: sim.Write, Cost: 100 * sim.Microsecond,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
		Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(1), false)}
	w.Fields = []workload.Generator{workload.NewUniform(1)}
	w.Service = sim.Service{Kind: sim.Constant}
	w.KeyFields = []int{0} // detection counts the rows written
	return metrics.Of(sim.Run(&sim.Model{Seed: 3, Duration: 11 * sim.Second, Warmup: sim.Second, Window: sim.Second,
		Nodes: []sim.Node{{Cores: 8}}, ShardNode: []int{0}, Streams: []sim.Stream{w},
		Mechanisms: []sim.Setting{locks.RowLocks{Streams: []locks.Stream{{Hold: sim.Delay{Kind: sim.Constant, Mean: hold}, Timeout: to}}}}}))
}

// A row lock binds by its load, with or without failures. 600 writes/s to one row whose
// lock is held 2 ms a write offer it rho = 600 × 0.002 = 1.2 (the review's runaway lock):
// its queue grows for the whole run and no write fails (no lock_timeout), while the node
// runs at 600 × 0.1 ms / 8 cores = 0.75% of its cores. The figures: a mean hold of 2 ms
// (constant), all writes on the one row, and an offered load of 1.2 within 5% (the Poisson
// count over 10 s is 6,000 ± 77, 1.3%). At 300 writes/s and a 1 ms hold (rho 0.3) the lock
// is still the resource nearest its limit but it does not bind yet.
func TestBottleneckLockLoad(t *testing.T) {
	r := lockRun(600, 2*sim.Millisecond, 0)
	l := r.Streams[0].Locks
	if l == nil || l.HoldMean == nil || math.Abs(*l.HoldMean-2) > 1e-9 || l.HotShare != 1 || math.Abs(l.Busy-1.2) > 0.06 {
		t.Fatalf("lock figures %+v, want a 2 ms hold, one row with every write, and a load of 1.2", l)
	}
	b := metrics.BottleneckOf(r, false)
	if b.Resource != metrics.Locks || b.Stream != "upd" || b.Node != -1 || !b.Binding || !strings.Contains(b.Text, "of the 500/s its lock passes") {
		t.Errorf("runaway lock: got %v (%q), binding %v; want row locks of upd, binding", b.Resource, b.Text, b.Binding)
	}
	if b := metrics.BottleneckOf(lockRun(300, sim.Millisecond, 0), false); b.Resource != metrics.Locks || b.Binding || math.Abs(b.Lock-0.3) > 0.03 {
		t.Errorf("lock at 30%%: got %v at %.3f, binding %v; want row locks at 0.3, not binding", b.Resource, b.Lock, b.Binding)
	}
}
