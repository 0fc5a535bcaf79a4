package rebalance_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/mechanisms/rebalance"
	"github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// rebModel is a small cluster for the rebalance tests: 2 nodes of 2 cores holding 8
// shards (modulo 8, alternately), 2 more nodes of 2 cores that join at start (the setting's
// At, and an add_nodes action the operator notes), a write
// stream of wRate/s and a read stream of rRate/s over a million uniform ids, both with
// exponential service of mean 100 µs; 1 s windows.
func rebModel(seed uint64, wRate, rRate float64, start, dur sim.Time, g rebalance.Rebalance) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	sch := keyspace.NewModulo(8)
	st := func(name string, op sim.Op, rate float64) sim.Stream {
		return sim.Stream{Name: name, Op: op, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
			Fields:   []workload.Generator{workload.NewUniform(1_000_000)},
			Planner:  keyspace.NewPointPlanner(d, sch, op == sim.Read)}
	}
	g.First, g.At = 2, start
	return &sim.Model{
		Seed: seed, Duration: dur, Window: sim.Second,
		Nodes:      []sim.Node{{Cores: 2}, {Cores: 2}, {Cores: 2}, {Cores: 2}},
		ShardNode:  []int{0, 1, 0, 1, 0, 1, 0, 1},
		Streams:    []sim.Stream{st("w", sim.Write, wRate), st("r", sim.Read, rRate)},
		Mechanisms: []sim.Setting{&g, operator.Actions{{At: start, Text: "2 nodes join"}}},
	}
}

// TestRebalanceMoves: two nodes join at 10 s and four shards move to them, one at a time,
// each copied at rate R = 50,000 rows/s while its own writes keep coming at
// lambda_s = 4,000 / 8 = 500/s. A move that starts at t0 with R0 rows to copy (its
// history share, 100,000 rows, plus the lambda_s x t0 rows written before) catches up
// when R x T = R0 + lambda_s x T: T = R0 / (R - lambda_s), and it copies
// R0 + lambda_s x T rows, the shard's rows at its end. CPU does not bind: the copy takes
// R x 5 µs = 0.25 of a core on the new node. Seed 11; the writes of one move, about
// lambda_s x 12 s = 6,000 (Poisson, standard deviation under 80, 1.3%), make the rows
// and the duration statistical: tolerance 1.5% on each move's rows and duration.
// The move's last batch adds its service time (under 5 ms in 2 s) to the duration.
func TestRebalanceMoves(t *testing.T) {
	const rate, lambdaS, hist = 50_000.0, 500.0, 800_000
	start := 10 * sim.Second
	r := sim.Run(rebModel(11, 8*lambdaS, 2000, start, 30*sim.Second, rebalance.Rebalance{Rate: rate, HistoryRows: hist,
		ReadCost: 2 * sim.Microsecond, WriteCost: 5 * sim.Microsecond}))
	g := metrics.RebalanceReport(r)
	if g.Start != start || len(g.Moves) != 4 || g.Done < 0 {
		t.Fatalf("rebalance started at %v with %d moves, done at %v: want %v, 4 moves, done", g.Start, len(g.Moves), g.Done, start)
	}
	at := start
	var rows int64
	for i, mv := range g.Moves {
		// Two shards to each new node, lowest id first, from the node with the most load.
		if wantTo := 2 + i%2; mv.To != wantTo || mv.Start != at || mv.Done < 0 {
			t.Fatalf("move %d: %+v; want to node %d from %v", i, mv, wantTo, at)
		}
		T := (mv.Done - mv.Start).Seconds()
		r0 := hist/8 + lambdaS*mv.Start.Seconds()
		within(t, "move duration (s)", T, r0/(rate-lambdaS), 0.015)
		within(t, "rows moved", float64(mv.Rows), hist/8+lambdaS*mv.Done.Seconds(), 0.015)
		if r.Shards[mv.Shard].Node != mv.To || len(r.Shards[mv.Shard].Moves) != 1 {
			t.Errorf("shard %d is on node %d after %d moves, want node %d after 1", mv.Shard, r.Shards[mv.Shard].Node, len(r.Shards[mv.Shard].Moves), mv.To)
		}
		rows += mv.Rows
		at = mv.Done
	}
	if rows != g.RowsCopied {
		t.Errorf("moves copied %d rows, total %d", rows, g.RowsCopied)
	}
	// The copy's CPU is exact: 7 µs per row (constant).
	if want := sim.Time(g.RowsCopied) * 7 * sim.Microsecond; g.CopyCPU != want {
		t.Errorf("copy CPU %v, want %v", g.CopyCPU, want)
	}
	var moves int
	for _, e := range r.Events {
		if e.Kind == sim.EventMove {
			moves++
		}
	}
	if moves != 4 {
		t.Errorf("%d move events, want 4", moves)
	}
	// Utilization law in window 10 ([10 s, 11 s), inside the first move): node 2 serves
	// only the copy's writes, R x 5 µs of CPU a second, exactly up to the batches'
	// phase; node 3 has joined and serves nothing. Before the join, nodes 2 and 3 have no
	// capacity at all.
	within(t, "new node's copy CPU in the first move (cores)", r.NodeBusy[10*4+2].Seconds(), rate*5e-6, 0.01)
	if r.NodeBusy[10*4+3] != 0 || r.NodeCapacity[9*4+2] != 0 || r.NodeCapacity[10*4+3] != 2*sim.Second {
		t.Errorf("window 10: node 3 busy %v; node 2's capacity in window 9 %v, node 3's in 10 %v: want 0, 0, 2s",
			r.NodeBusy[10*4+3], r.NodeCapacity[9*4+2], r.NodeCapacity[10*4+3])
	}
	// After the last move every node serves a quarter of the live traffic: (4,000 +
	// 2,000)/s x 100 µs / 4 = 0.15 of a core, over the whole windows after Done (about
	// 20,000 requests each: 1% standard error); tolerance 5%.
	w0 := int(g.Done/sim.Second) + 1
	for n := range 4 {
		var busy sim.Time
		for w := w0; w < r.Windows; w++ {
			busy += r.NodeBusy[w*4+n]
		}
		within(t, "node's live load after the rebalance (cores)", busy.Seconds()/float64(r.Windows-w0), 6000*100e-6/4, 0.05)
	}
}

// TestRebalanceMaxCPU: with max_cpu = 0.25 on nodes of 2 cores and a write cost of
// 20 µs per row, the copy rate is capped at 0.25 x 2 / 20 µs = 25,000 rows/s, below the
// 100,000 asked; with no traffic at all a move then takes exactly its rows / 25,000 s
// (100,000 history rows each, up to a batch period and the last batch's service, 10 ms
// and 5 ms: tolerance 0.2%, 8 ms).
func TestRebalanceMaxCPU(t *testing.T) {
	r := sim.Run(rebModel(5, 0, 0, 2*sim.Second, 40*sim.Second, rebalance.Rebalance{Rate: 100_000, MaxCPU: 0.25, HistoryRows: 800_000,
		ReadCost: 10 * sim.Microsecond, WriteCost: 20 * sim.Microsecond}))
	g := metrics.RebalanceReport(r)
	within(t, "rate applied (rows/s)", g.Rate, 25_000, 1e-9)
	for i, mv := range g.Moves {
		if mv.Rows != 100_000 {
			t.Errorf("move %d copied %d rows, want 100,000", i, mv.Rows)
		}
		within(t, "capped move duration (s)", (mv.Done - mv.Start).Seconds(), 4, 0.002)
	}
	if g.Done < 0 || len(g.Moves) != 4 {
		t.Fatalf("%d moves, done at %v", len(g.Moves), g.Done)
	}
}

// TestRebalanceParallel: with parallel = 2 the first two moves start together at 10 s,
// one to each new node, and each of the four still takes R0 / (R - lambda_s) (the
// formula of TestRebalanceMoves: a move's bandwidth is its own); the third and fourth
// start as the first two end. By the utilization law each new node spends R x 5 µs =
// 0.25 of a core on its copy's writes in window 10. Seed 11, tolerances as there.
func TestRebalanceParallel(t *testing.T) {
	const rate, lambdaS, hist = 50_000.0, 500.0, 800_000
	start := 10 * sim.Second
	r := sim.Run(rebModel(11, 8*lambdaS, 2000, start, 30*sim.Second, rebalance.Rebalance{Rate: rate, HistoryRows: hist,
		ReadCost: 2 * sim.Microsecond, WriteCost: 5 * sim.Microsecond, Parallel: 2}))
	g := metrics.RebalanceReport(r)
	if len(g.Moves) != 4 || g.Done < 0 {
		t.Fatalf("%d moves, done at %v: want 4, done", len(g.Moves), g.Done)
	}
	ends := []sim.Time{}
	for i, mv := range g.Moves {
		if i < 2 && mv.Start != start || i >= 2 && !slices.Contains(ends, mv.Start) {
			t.Errorf("move %d started at %v; want the first two at %v, the others as one ends (%v)", i, mv.Start, start, ends)
		}
		ends = append(ends, mv.Done)
		T := (mv.Done - mv.Start).Seconds()
		within(t, "move duration (s)", T, (hist/8+lambdaS*mv.Start.Seconds())/(rate-lambdaS), 0.015)
	}
	for n := 2; n < 4; n++ {
		within(t, "a new node's copy CPU with two moves at once (cores)", r.NodeBusy[10*4+n].Seconds(), rate*5e-6, 0.01)
	}
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if rel := math.Abs(got-want) / want; rel > tol {
		t.Errorf("%s = %.5g, want %.5g within %.2g%% (off by %.3f%%)", what, got, want, tol*100, rel*100)
	} else {
		t.Logf("%s = %.5g, formula %.5g (off by %.3f%%)", what, got, want, rel*100)
	}
}

// TestNoAllocs: the event loop allocates nothing in steady state while shards are copied
// (two moves at once, started at once, each long enough to outlast the measure), in one
// window (a window's end may allocate: its figures are kept).
func TestNoAllocs(t *testing.T) {
	m := rebModel(3, 4000, 2000, 0, 60*sim.Second, rebalance.Rebalance{Rate: 20_000, HistoryRows: 8_000_000,
		ReadCost: 2 * sim.Microsecond, WriteCost: 5 * sim.Microsecond, Parallel: 2})
	m.Window = m.Duration
	mechtest.NoAllocs(t, m)
}

// TestRefusals: a rebalance moves the table's shards alone, without followers: a model with
// replicas, or with shards of a mechanism's own (an index's), is refused when the engine is
// built (Core.CopyBy refused replicas for every Copier before the migration became one).
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(m *sim.Model)
	}{
		{"replicas", func(m *sim.Model) {
			m.Mechanisms = append([]sim.Setting{replicas.Replicas{Followers: 1}}, m.Mechanisms...)
		}},
		{"own shards", func(m *sim.Model) { m.Mechanisms = append([]sim.Setting{owner{}}, m.Mechanisms...) }},
	} {
		m := rebModel(1, 100, 100, sim.Second, 2*sim.Second, rebalance.Rebalance{Rate: 1000})
		c.edit(m)
		func() {
			defer func() {
				if p, _ := recover().(string); !strings.Contains(p, "cannot be combined") {
					t.Errorf("%s: panic %q, want the rebalance refused", c.name, p)
				}
			}()
			sim.Run(m)
		}()
	}
}

// owner is a Setting with one shard of its own, on node 0.
type owner struct{}

func (owner) OwnShards(c sim.Core) { c.AddShards([]int{0}) }
func (owner) On(sim.Core)          {}
func (owner) Note() string         { return "" }
func (owner) Waiter() float64      { return 0 }
