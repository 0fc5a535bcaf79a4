package migrate

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// TestNoAllocationsMigrating is sim's TestNoAllocationsPerRequest during a migration: dual
// writes and a backfill (a dry run that never cuts over), the same through an outbox, and
// after a cutover. The run's state is seen through Migration.probe.
func TestNoAllocationsMigrating(t *testing.T) {
	const shards = 12
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	var s *state
	mk := func(cutover sim.Time) (*sim.Model, *Migration) {
		scheme, next := keyspace.NewModulo(shards), keyspace.NewModulo(2*shards)
		st := func(name string, op sim.Op) sim.Stream {
			return sim.Stream{Name: name, Op: op, Cost: 80 * sim.Microsecond,
				Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 40000}}),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(d, scheme, op == sim.Read)}
		}
		m := &sim.Model{
			Seed: 1, Duration: 100 * sim.Second, Window: 100 * sim.Second, Network: sim.Millisecond,
			Nodes: make([]sim.Node, shards), ShardNode: make([]int, shards),
			Streams: []sim.Stream{st("w", sim.Write), st("r", sim.Read)},
		}
		g := &Migration{At: 300 * sim.Millisecond,
			Planners:  []sim.Planner{keyspace.NewPointPlanner(d, next, false), keyspace.NewPointPlanner(d, next, true)},
			ShardNode: make([]int, 2*shards), Rate: 100_000, HistoryRows: 1e9,
			ReadCost: sim.Microsecond, WriteCost: 2 * sim.Microsecond, Cutover: cutover, Name: "next",
			probe: func(st *state) { s = st },
		}
		m.Mechanisms = []sim.Setting{g}
		for i := range m.Nodes {
			m.Nodes[i] = sim.Node{Cores: 2, QueueLimit: 1000}
			m.ShardNode[i] = i
		}
		for i := range g.ShardNode {
			g.ShardNode[i] = i % shards
		}
		return m, g
	}
	t.Run("dual", func(t *testing.T) {
		m, _ := mk(sim.CutoverNever)
		mechtest.NoAllocs(t, m)
		if g := s; g.phase != dual || g.res.RowsCopied == 0 {
			t.Errorf("phase %d, %d rows copied: want dual writes and a backfill under way", g.phase, g.res.RowsCopied)
		}
	})
	t.Run("outbox", func(t *testing.T) {
		m, g := mk(sim.CutoverNever)
		g.Outbox = 100 * sim.Millisecond
		mechtest.NoAllocs(t, m)
		if g := s; g.obLen == 0 || g.res.DualCPU == 0 {
			t.Errorf("%d copies in the outbox, dual-write CPU %v: want copies under way", g.obLen, g.res.DualCPU)
		}
	})
	t.Run("cutover", func(t *testing.T) {
		m, _ := mk(600 * sim.Millisecond)
		mechtest.NoAllocs(t, m)
		if g := s; g.phase != after {
			t.Errorf("phase %d: want the cutover done", g.phase)
		}
	})
}
