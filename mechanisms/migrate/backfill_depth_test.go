package migrate

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// depthModel is a cluster of n nodes of 8 cores with 8 old shards and 16 new ones spread
// round robin, next to no live traffic, and a backfill asked to go far faster than its
// CPU allows (1e6 rows/s, batches of 10,000 rows, each row costing readCost to read and
// writeCost to write):
// the copy runs at its bound of batches in flight for the whole run.
func depthModel(n int, dur sim.Time, readCost, writeCost sim.Time) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	old, next := keyspace.NewModulo(8), keyspace.NewModulo(16)
	g := &Migration{Rate: 1e6, HistoryRows: 100_000_000, ReadCost: readCost, WriteCost: writeCost,
		Cutover: sim.CutoverNever, Name: "next", Planners: []sim.Planner{keyspace.NewPointPlanner(d, next, false)}}
	g.ShardNode = make([]int, 16)
	for i := range g.ShardNode {
		g.ShardNode[i] = i % n
	}
	m := &sim.Model{Seed: 1, Duration: dur, Window: sim.Second, ShardNode: make([]int, 8),
		Streams: []sim.Stream{{Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 0.001}}),
			Fields:   []workload.Generator{workload.NewUniform(1_000_000)},
			Planner:  keyspace.NewPointPlanner(d, old, false)}},
		Mechanisms: []sim.Setting{g, operator.Actions{{At: 0, Text: "migration to next started"}}}}
	for i := range m.ShardNode {
		m.ShardNode[i] = i % n
	}
	for range n {
		m.Nodes = append(m.Nodes, sim.Node{Cores: 8})
	}
	return m
}

// TestBackfillBatchesInFlight: the backfill keeps at most two batches per node of the
// cluster in flight (docs/migrations.md), and a batch's write follows its read, so a
// batch holds one core at a time. A copy at its bound therefore keeps exactly that many
// cores busy: busy cores = batches in flight = 2 x nodes, and copies 2 x nodes /
// (read cost + write cost) rows/s = 100,000 rows/s per node. (Before, a batch's read and
// write ran at once and a new batch left as soon as either ended: the bound was on
// subrequests, and the cores busy, 2.0 on 1 node, 3.9 on 2, 7.6 on 4, matched no count
// of batches.) No randomness reaches the copy (constant costs; the live stream sends
// next to nothing, and every node has 8 cores, as many as the batches in flight, so none
// waits): the departures from the closed form are the run's end, which cuts the batches
// then in flight, and its start, before the first write; both are outside the windows
// compared. 18 s of windows of 1 s, tolerance 0.5% (the figures come out exact).
func TestBackfillBatchesInFlight(t *testing.T) {
	const dur = 20 * sim.Second
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d nodes", n), func(t *testing.T) {
			r := sim.Run(depthModel(n, dur, 10*sim.Microsecond, 10*sim.Microsecond))
			g := metrics.MigrationReport(r)
			if g.BackfillDone >= 0 {
				t.Fatalf("the backfill finished at %v: want it at its bound for the whole run", g.BackfillDone)
			}
			// The windows after the first (whose first 0.2 s copy nothing: the first
			// batches' reads) and before the last: the mean number of cores the copy
			// held, and the rows it copied.
			var busy sim.Time
			var rows int64
			for w := 1; w < r.Windows-1; w++ {
				busy += g.BackfillBusy[w]
				rows += g.Copied[w]
			}
			span := sim.Time(r.Windows-2) * r.Window
			within(t, "backfill cores busy", float64(busy)/float64(span), float64(2*n), 0.005)
			within(t, "rows copied per second", float64(rows)/span.Seconds(), float64(2*n)/20e-6, 0.005)
		})
	}
}

// TestBackfillReadThenWrite: a batch's write starts when its read has been served, as a
// copy job writes the rows it has read. With reads of 200 µs a row (2 s for a batch of
// 10,000 rows) and writes of 10 µs (0.1 s), the first batches, issued 10 ms apart from
// t = 0, finish their reads from 2 s on and their writes by 2.2 s: no row is copied in
// the first two windows of 1 s, and the third copies exactly the first 2 x nodes batches
// (the next ones leave as those end, and read until past 4 s). When read and write ran at
// once, the first writes were done at 0.1 s. Deterministic (constant costs, no queueing).
func TestBackfillReadThenWrite(t *testing.T) {
	for _, n := range []int{1, 4} {
		r := sim.Run(depthModel(n, 5*sim.Second, 200*sim.Microsecond, 10*sim.Microsecond))
		c := metrics.MigrationReport(r).Copied
		if c[0] != 0 || c[1] != 0 || c[2] != int64(2*n)*10_000 {
			t.Errorf("%d nodes: rows copied in the first three windows %v, want [0 0 %d]", n, c[:3], 2*n*10_000)
		}
	}
}
