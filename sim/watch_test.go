package sim

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestWatchNodeBusy: what Watch.NodeBusy reads of a window once Now is past its end is the
// node's busy core time the run's Result holds for that window at the end, to the
// nanosecond: from the shards' series (no replica), and from the node series a run with
// replicas keeps as it goes. Three 2-core nodes, six shards, 12,000 reads/s of 200 µs
// (40% of the cores) for 10 s in windows of 250 ms, seed 3; watched about once a second (sim's pace for
// short windows).
func TestWatchNodeBusy(t *testing.T) {
	for _, replicas := range []int{0, 1} {
		scheme := keyspace.NewModulo(6)
		m := &Model{
			Seed: 3, Duration: 10 * Second, Warmup: 250 * Millisecond, Window: 250 * Millisecond, Network: 200 * Microsecond,
			Nodes:      []Node{{Cores: 2}, {Cores: 2}, {Cores: 2}},
			ShardNode:  []int{0, 1, 2, 0, 1, 2},
			Mechanisms: []Setting{followers{n: replicas}},
			Streams: []Stream{{
				Name: "r", Op: Read, Cost: 200 * Microsecond,
				Arrivals: workload.NewPoisson(constRate(12000)),
				Fields:   []workload.Generator{workload.NewUniform(5000)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true), KeyFields: []int{0},
			}},
		}
		seen := map[[2]int]Time{}
		calls := 0
		m.Watch = func(w Watch) bool {
			calls++
			for win := 0; Time(win+1)*m.Window <= w.Now(); win++ {
				for n := range m.Nodes {
					busy, ok := w.NodeBusy(n, win)
					if !ok {
						t.Fatalf("replicas %d: window %d of node %d not held at %v", replicas, win, n, w.Now())
					}
					if prev, done := seen[[2]int{n, win}]; done && prev != busy {
						t.Errorf("replicas %d: window %d of node %d read %v, then %v", replicas, win, n, prev, busy)
					}
					seen[[2]int{n, win}] = busy
				}
			}
			return false
		}
		r := Run(m)
		if calls < 5 || len(seen) < 3*30 {
			t.Fatalf("replicas %d: %d calls read %d windows, want most of the 40", replicas, calls, len(seen)/3)
		}
		for k, busy := range seen {
			if want := r.NodeBusy[k[1]*len(m.Nodes)+k[0]]; busy != want || busy == 0 {
				t.Errorf("replicas %d: node %d window %d: the watch read %v, the result holds %v", replicas, k[0], k[1], busy, want)
			}
		}
	}
}
