package index_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/index"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// Tests of global secondary indexes (docs/mitigations.md, "Global secondary indexes"):
// closed forms of an index's push-back and of a synchronous index's fork-join, with their
// seed, sample size and tolerance, and where an index's writes and reads land.

// indexesOf is the setting of m's indexes (the first of its mechanisms).
func indexesOf(m *sim.Model) *index.Indexes { return m.Mechanisms[0].(*index.Indexes) }

// indexModel is a table of tableShards shards keyed by field 0 (uniform over 100,000
// values), one shard a node, with one index keyed by field 1 (uniform over idxValues
// values) over idxShards shards, each on a node of its own after the table's; one write
// stream at rate, cost exponential with mean cost.
func indexModel(tableShards, idxShards int, idxValues uint64, rate float64, cost sim.Time, async bool) *sim.Model {
	td := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	xd := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 1}}}
	m := &sim.Model{
		Seed: 7, Duration: 200 * sim.Second, Window: 10 * sim.Second,
		Nodes: make([]sim.Node, tableShards+idxShards), ShardNode: make([]int, tableShards),
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: cost,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
			Fields:   []workload.Generator{workload.NewUniform(100_000), workload.NewUniform(idxValues)},
			Planner:  keyspace.NewPointPlanner(td, keyspace.NewModulo(tableShards), false),
		}},
		Mechanisms: []sim.Setting{&index.Indexes{List: []index.Index{{
			Name: "by_group", ShardNode: make([]int, idxShards), Async: async,
			Planners: []sim.Planner{keyspace.NewPointPlanner(xd, keyspace.NewModulo(idxShards), false)},
		}}}},
	}
	for i := range m.Nodes {
		m.Nodes[i] = sim.Node{Cores: 1}
	}
	for s := range m.ShardNode {
		m.ShardNode[s] = s
	}
	for s := range indexesOf(m).List[0].ShardNode {
		indexesOf(m).List[0].ShardNode[s] = tableShards + s
	}
	return m
}

// TestAsyncIndexLimitThrottlesTable: writes at 2,000 a second, all of whose index entries
// fall in one index partition limited to 500 writes a second. An asynchronous index
// pushes back on the table: the table's writes that succeed are at most what the index
// partition admits, its rate times the run plus the one second it banks at the start,
// 500 x 200 + 500 = 100,500 (closed form of a token bucket fed faster than its rate: every
// token is taken). Seed 7, 400,000 writes; tolerance 0.5%, for the few moments the Poisson
// arrivals leave the bucket full (a rate of 2,000 against 500 leaves it so about never).
func TestAsyncIndexLimitThrottlesTable(t *testing.T) {
	m := indexModel(4, 1, 1, 2000, 50*sim.Microsecond, true)
	indexesOf(m).List[0].WriteRate = 500
	r := sim.Run(m)
	w := &r.Streams[0]
	want := 500*m.Duration.Seconds() + 500
	if got := float64(w.Completed); math.Abs(got-want) > 0.005*want {
		t.Errorf("%d table writes succeeded, want %.0f (the index partition's limit): the index must push back", w.Completed, want)
	}
	t.Logf("async index limited to 500/s: %d of %d table writes succeeded, closed form %.0f", w.Completed, w.Offered, want)
	if w.Failed[limits.Throttled]+w.Completed != w.Offered {
		t.Errorf("%d throttled + %d completed != %d offered: every other write must fail throttled", w.Failed[limits.Throttled], w.Completed, w.Offered)
	}
	idx := metrics.IndexLayouts(r)[0]
	if idx.First != 4 || idx.Shards != 1 || !idx.Async || idx.Name != "by_group" {
		t.Errorf("index layout %+v, want by_group at shard 4, 1 shard, async", idx)
	}
	if sh := r.Shards[4]; sh.Failed[limits.Throttled] != w.Failed[limits.Throttled] || sh.Ops != w.Completed {
		t.Errorf("index shard: %d ops, %d throttled; want the %d writes admitted and the %d throttled", sh.Ops, sh.Failed[limits.Throttled], w.Completed, w.Failed[limits.Throttled])
	}
	// The table's shards served every write, the refused ones too (their work is done
	// before the index refuses): the table's ops are the offered writes.
	var tableOps int64
	for s := range 4 {
		tableOps += r.Shards[s].Ops
	}
	if tableOps != w.Offered {
		t.Errorf("table shards served %d writes, want all %d offered", tableOps, w.Offered)
	}
	for s, n := range w.ShardRows[4:] {
		if n != 0 {
			t.Errorf("stream's ShardRows counts %d rows on index shard %d: want the table's rows only", n, 4+s)
		}
	}
}

// TestAsyncIndexFreeBelowLimit: with the index's limit above its write rate and its
// node's queue unbounded, an asynchronous index refuses nothing, and the write's latency
// is the table's path alone: M/M/1 at rho = 0.5, mean 1/(mu - lambda) = 2 ms. Seed 7,
// 100,000 writes; tolerance 5%.
func TestAsyncIndexFreeBelowLimit(t *testing.T) {
	m := indexModel(1, 1, 10, 500, sim.Millisecond, true)
	indexesOf(m).List[0].WriteRate = 1000
	r := sim.Run(m)
	w := &r.Streams[0]
	if w.Completed != w.Offered {
		t.Fatalf("%d of %d writes completed, want all", w.Completed, w.Offered)
	}
	mean := w.LatencySum / float64(w.Completed) / float64(sim.Millisecond)
	if math.Abs(mean-2) > 0.05*2 {
		t.Errorf("mean write latency %.3f ms, want 2 ms (the table's M/M/1 path alone)", mean)
	}
	if r.Shards[1].Ops != w.Offered {
		t.Errorf("index shard served %d writes, want every one of the %d", r.Shards[1].Ops, w.Offered)
	}
}

// TestSyncIndexForkJoin: a synchronous index makes every write a fork-join of two M/M/1
// paths with equal load (the table's shard on one single-core node, the index's on
// another, both at lambda = 500/s and mu = 1,000/s, rho = 0.5). The mean response of such
// a fork-join is (12 - rho)/8 x 1/(mu - lambda) (Nelson and Tantawi 1988; Flatto and Hahn
// 1984): 11.5/8 x 2 ms = 2.875 ms, against 2 ms for either path alone. Seed 7, 100,000
// writes; tolerance 4% (the two queues' sojourns are correlated through their common
// arrivals, which widens the mean's spread beyond the M/M/1's).
func TestSyncIndexForkJoin(t *testing.T) {
	const lambda, mu = 500.0, 1000.0
	rho := lambda / mu
	want := (12 - rho) / 8 / (mu - lambda) * 1000 // ms
	sync := sim.Run(indexModel(1, 1, 10, lambda, sim.Millisecond, false))
	w := &sync.Streams[0]
	if w.Completed != w.Offered {
		t.Fatalf("%d of %d writes completed, want all", w.Completed, w.Offered)
	}
	mean := w.LatencySum / float64(w.Completed) / float64(sim.Millisecond)
	if math.Abs(mean-want) > 0.04*want {
		t.Errorf("sync index: mean write latency %.3f ms, want %.3f ms (Nelson-Tantawi)", mean, want)
	}
	// Each path alone: the same model without the index.
	plain := indexModel(1, 1, 10, lambda, sim.Millisecond, false)
	plain.Mechanisms, plain.Nodes = nil, plain.Nodes[:1]
	p := sim.Run(plain).Streams[0]
	alone := p.LatencySum / float64(p.Completed) / float64(sim.Millisecond)
	if math.Abs(alone-2) > 0.05*2 || mean < alone {
		t.Errorf("the table's path alone: %.3f ms (want 2 ms, M/M/1); the fork-join %.3f ms must not be below it", alone, mean)
	}
	t.Logf("fork-join: simulated %.3f ms, Nelson-Tantawi %.3f ms; one path: simulated %.3f ms, M/M/1 2 ms", mean, want, alone)
}

// TestIndexReadsLandOnIndexShards: reads routed over an index (Index.Reads) visit the
// index's shards, by its key design: each read of field-1 value v lands on index shard
// Modulo(4)'s shard of v, offset past the table's 8 shards, and never on the table's. The
// expected count of each index shard is the reads times the share of the 16 values its
// scheme gives it (the slow, obviously right version: the scheme asked value by value).
// Seed 7, about 100,000 reads; tolerance 4 standard deviations of a binomial count.
func TestIndexReadsLandOnIndexShards(t *testing.T) {
	m := indexModel(8, 4, 16, 100, 10*sim.Microsecond, true)
	xd := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 1}}}
	xs := keyspace.NewModulo(4)
	m.Streams = append(m.Streams, sim.Stream{
		Name: "r", Op: sim.Read, Cost: 10 * sim.Microsecond,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 500}}),
		Fields:   []workload.Generator{nil, workload.NewUniform(16)},
		Planner:  keyspace.NewPointPlanner(xd, xs, true),
	})
	indexesOf(m).List[0].Planners = append(indexesOf(m).List[0].Planners, nil)
	indexesOf(m).List[0].Reads = []int{1}
	r := sim.Run(m)
	reads := r.Streams[1].Completed
	share := make([]float64, 4)
	var k keyspace.Key
	for v := range uint64(16) {
		xd.KeyInto(&k, []uint64{0, v}, 0, 0)
		share[xs.Shard(&k)] += 1.0 / 16
	}
	writes := r.Streams[0].Completed
	for s := range 4 {
		got := float64(r.Shards[8+s].Ops) - float64(writes)*share[s] // the writes' index entries land there too
		n := float64(reads)
		want, sd := n*share[s], math.Sqrt(n*share[s]*(1-share[s]))
		if math.Abs(got-want) > 4*sd+4*math.Sqrt(float64(writes)) {
			t.Errorf("index shard %d served %.0f reads, want %.0f (share %.3f of the values)", s, got, want, share[s])
		}
	}
	t.Logf("index reads: %d, shares %v, index shards' ops %v", reads, share, []int64{r.Shards[8].Ops, r.Shards[9].Ops, r.Shards[10].Ops, r.Shards[11].Ops})
	var tableOps int64
	for s := range 8 {
		tableOps += r.Shards[s].Ops
	}
	if tableOps != r.Streams[0].Offered {
		t.Errorf("table shards served %d, want the %d writes only: no read may land there", tableOps, r.Streams[0].Offered)
	}
}

// indexMix is a model whose writes write a synchronous and an asynchronous index, and
// whose reads go over the second: every path of the indexes at once.
func indexMix() *sim.Model {
	m := indexModel(4, 2, 1000, 20000, 20*sim.Microsecond, false)
	m.Duration, m.Window = 100*sim.Second, 100*sim.Second
	xd := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 1}}}
	async := index.Index{Name: "a", ShardNode: []int{0, 1}, Async: true, WriteRate: 8000, ReadRate: 8000,
		Planners: []sim.Planner{keyspace.NewPointPlanner(xd, keyspace.NewModulo(2), false), nil}, Reads: []int{1}}
	x := indexesOf(m)
	x.List = append(x.List, async)
	x.List[0].Planners = append(x.List[0].Planners, nil)
	m.Streams = append(m.Streams, sim.Stream{
		Name: "r", Op: sim.Read, Cost: 10 * sim.Microsecond,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 20000}}),
		Fields:   []workload.Generator{nil, workload.NewUniform(1000)},
		Planner:  keyspace.NewPointPlanner(xd, keyspace.NewModulo(2), true),
	})
	for i := range m.Nodes {
		m.Nodes[i].QueueLimit = 1000
	}
	return m
}

// TestIndexNoAllocations: a write that writes a synchronous and an asynchronous index, and
// reads over one of them, allocate nothing per request in steady state; and both indexes'
// shards serve (a run of the same model, cut to 2 s).
func TestIndexNoAllocations(t *testing.T) {
	mechtest.NoAllocs(t, indexMix())
	m := indexMix()
	m.Duration, m.Window = 2*sim.Second, 2*sim.Second
	r := sim.Run(m)
	if r.Shards[6].Ops+r.Shards[7].Ops == 0 || r.Shards[4].Ops+r.Shards[5].Ops == 0 {
		t.Errorf("index shards served %d, %d, %d, %d: want both indexes' shards to serve", r.Shards[4].Ops, r.Shards[5].Ops, r.Shards[6].Ops, r.Shards[7].Ops)
	}
	mechtest.Conserve(t, r)
}

// TestIndexStaysOnOneEngine: a model with an index is not split among workers (a sync
// write joins its table's and its index's nodes; an async one is refused by the index's):
// OneCoreReason names the index, and a run offered two cores runs on one.
func TestIndexStaysOnOneEngine(t *testing.T) {
	m := indexModel(2, 1, 4, 100, sim.Millisecond, false)
	if why := sim.OneCoreReason(m); !strings.Contains(why, "index") {
		t.Errorf("OneCoreReason %q, want the index named", why)
	}
	r := sim.RunOn(2, func() *sim.Model { return indexModel(2, 1, 4, 100, sim.Millisecond, true) })
	if r.Cores != 1 || !strings.Contains(r.OneCore, "index") {
		t.Errorf("a run with an index offered 2 cores ran on %d, saying %q: want one, the index named", r.Cores, r.OneCore)
	}
}
