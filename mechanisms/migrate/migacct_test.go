package migrate

import (
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// The migration's accounting: the outbox at the cutover, the backfill under a full queue,
// and the backfill's CPU as it is served.

// TestOutboxCutoverDrains: with an outbox of lag 2 s, the cutover due at 20 s waits for
// the copies the outbox holds (the writes of the last 2 s, lambda_w x 2 s = 8,000), with
// the dual writes synchronous meanwhile, so it comes 2 s later (up to the last copy's
// wait and service: the nodes run at 0.125 of their cores, within 5 ms). Every write from
// the start at 10 s to the cutover then has its copy on the new layout counted, so by the
// utilization law DualCPU = lambda_w x c x (cutover - start) = 4,000/s x 100 µs x 12 s =
// 4.8 core-s (the old model applied the last 2 s of copies after the cutover and did not
// count them: 3.2). Seed 13, about 48,000 writes: relative standard error sqrt(2/N), 0.7%;
// tolerance 3%. The drained copies are a Poisson count of mean 8,000 (standard deviation
// 89): tolerance 5%.
func TestOutboxCutoverDrains(t *testing.T) {
	const wRate, c, lag = 4000.0, 100e-6, 2 * sim.Second
	r := sim.Run(migModel(13, wRate, 2000, 10*sim.Second, 40*sim.Second, Migration{Rate: 1e6, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond,
		Cutover: 20 * sim.Second, Outbox: lag}))
	g := metrics.MigrationReport(r)
	if g.CutoverDue != 20*sim.Second {
		t.Fatalf("cutover due at %v, want 20s", g.CutoverDue)
	}
	if d := g.Cutover - g.CutoverDue; d < lag-5*sim.Millisecond || d > lag+5*sim.Millisecond {
		t.Errorf("the cutover waited %v for the outbox, want its lag %v within 5ms", d, lag)
	}
	within(t, "copies drained before the cutover", float64(g.Drained), wRate*lag.Seconds(), 0.05)
	within(t, "dual-write CPU (core-s)", g.DualCPU.Seconds(), wRate*c*(g.Cutover-g.Start).Seconds(), 0.03)
	if f := r.Streams[0].MaxFanout; f != 2 {
		t.Errorf("write fan-out %d, want 2: the writes while the outbox drains wait for both layouts", f)
	}
}

// TestOutboxCopyRefusedRetried: a copy that reaches a full queue goes back to the outbox
// and is applied one lag later, so none is lost: with the migration at 0 and no cutover,
// the new layout gains a row for every write but those whose copy is still in the
// outbox at the end (the last 50 ms's, about 500, and those retried in it). Queues of 2
// at 0.625 of the nodes' cores (reads 30,000/s and writes 10,000/s twice, 100 µs, 4
// nodes of 2 cores: the M/M/2/4 blocking probability is 8%) refuse thousands of copies,
// which the old model dropped. Seed 17, 10 s; the bound is 1,000 rows (twice the last
// 50 ms's writes, as TestOutbox).
func TestOutboxCopyRefusedRetried(t *testing.T) {
	m := migModel(17, 10_000, 30_000, 0, 10*sim.Second, Migration{Rate: 1000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond,
		Cutover: sim.CutoverNever, Outbox: 50 * sim.Millisecond})
	for i := range m.Nodes {
		m.Nodes[i].QueueLimit = 2
	}
	r := sim.Run(m)
	g := metrics.MigrationReport(r)
	var rows, rejected int64
	for s := g.Shards; s < len(r.Shards); s++ {
		rows += r.Shards[s].Rows
	}
	for s := range g.Shards {
		rejected += r.Shards[s].Rejected
	}
	if w := r.Streams[0].Offered; rows > w || rows < w-1000 {
		t.Errorf("new layout gained %d rows from %d writes; want all but the last 50 ms's", rows, w)
	}
	if rejected < 10_000 {
		t.Errorf("the old layout's queues refused %d requests: too few to refuse copies too", rejected)
	}
}

// bpModel is one node of 2 cores with a queue limit, serving the old layout's 2 shards
// and the new one's 2: a read stream over a million uniform ids (exponential service of
// mean 100 µs) on a Poisson schedule, and a migration at 1 s whose backfill copies
// 1,000,000 history rows at 50,000 rows/s (batches of 500 rows every 10 ms), reading at
// readCost and writing at 1 ns a row (0.5 µs a batch), with no cutover. The new layout's
// shards serve nothing but the backfill's writes (there are no live writes).
func bpModel(seed uint64, limit int, s workload.Schedule, readCost sim.Time, dur sim.Time) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	lay := keyspace.NewModulo(2)
	g := &Migration{At: sim.Second, Rate: 50_000, HistoryRows: 1_000_000, ReadCost: readCost, WriteCost: 1,
		Cutover: sim.CutoverNever, Name: "next", ShardNode: []int{0, 0},
		Planners: []sim.Planner{keyspace.NewPointPlanner(d, lay, true)}}
	return &sim.Model{Seed: seed, Duration: dur, Window: sim.Second,
		Nodes:     []sim.Node{{Cores: 2, QueueLimit: limit}},
		ShardNode: []int{0, 0},
		Streams: []sim.Stream{{Name: "r", Op: sim.Read, Cost: 100 * sim.Microsecond, Arrivals: workload.NewPoisson(s),
			Fields: []workload.Generator{workload.NewUniform(1_000_000)}, Planner: keyspace.NewPointPlanner(d, lay, true)}},
		Mechanisms: []sim.Setting{g, operator.Actions{{At: sim.Second}}}}
}

// mmcK returns the stationary distribution p_0 .. p_K of the number in an M/M/c/K
// system (c servers of rate mu fed at rate lambda, room for K, c in service and K - c
// waiting): p_n = a^n/n! p_0 for n < c and a^c/c! rho^(n-c) p_0 for c <= n <= K, with
// a = lambda/mu and rho = a/c (Gross and Harris, Fundamentals of Queueing Theory,
// section 2.5).
func mmcK(lambda, mu float64, c, k int) []float64 {
	a := lambda / mu
	p := make([]float64, k+1)
	p[0] = 1
	for n := 1; n <= k; n++ {
		p[n] = p[n-1] * a / float64(min(n, c))
	}
	var sum float64
	for _, x := range p {
		sum += x
	}
	for n := range p {
		p[n] /= sum
	}
	return p
}

// TestBackfillBackPressure: a batch is sent only if its read would be let in (a free
// core, or a place in a queue below its limit); otherwise it waits one period and is
// tried again, so the copy takes RowsToCopy / rate / (1 - p): the closed form of
// TestBackfillDuration, stretched by the share p of the batch times at which the node
// has no room. Ticks come every 10 ms, a periodic sampling of the node independent of it,
// so p is stationary: here read and write go to one node of 2 cores whose queue limit is
// 4 (K = 6), full with probability p = p_6 of M/M/2/6 with reads of 18,000/s at 100 µs
// (rho 0.9): 0.113, 22.5 s for 20 s of rows. (The copy's own load, 500 ns a batch, is
// 5e-5 of a core.) The write, sent when the read is served, is never refused here: the
// read's end frees a core, which takes one from the queue, so the queue is below its
// limit. Seed 19; about 2,040 batches and 260 refusals, a count whose standard deviation
// is about 15 (0.7% of the duration): tolerance 4%; the model without back-pressure
// (20 s) is 11% off. The refusals' share of the tries is p within 18% (3 standard
// deviations of a binomial share over about 2,300 tries).
func TestBackfillBackPressure(t *testing.T) {
	const rate, lambda, mu = 50_000.0, 18_000.0, 10_000.0
	r := sim.Run(bpModel(19, 4, workload.Schedule{{At: 0, Rate: lambda}}, 1, 30*sim.Second))
	g := metrics.MigrationReport(r)
	if g.BackfillDone < 0 {
		t.Fatalf("backfill not done: %d of %d rows copied", g.RowsCopied, g.RowsToCopy)
	}
	p := mmcK(lambda, mu, 2, 6)[6]
	within(t, "backfill duration under back-pressure (s)", (g.BackfillDone - g.Start).Seconds(), float64(g.RowsToCopy)/rate/(1-p), 0.04)
	batches := float64(g.RowsToCopy) / 500
	within(t, "batches refused per try", float64(g.Refused)/(float64(g.Refused)+batches), p, 0.18)
	// Neither the live reads nor the copy ever passed the limit.
	for w, q := range r.NodeMaxQueue {
		if q > 4 {
			t.Errorf("window %d: node 0 queued %d, over its limit of 4", w, q)
		}
	}
	// Without a limit nothing pushes back: rows / rate within 0.1%, as TestBackfillDuration.
	u := metrics.MigrationReport(sim.Run(bpModel(19, 0, workload.Schedule{{At: 0, Rate: lambda}}, 1, 30*sim.Second)))
	if u.Refused != 0 {
		t.Errorf("%d batches refused with no queue limit", u.Refused)
	}
	within(t, "backfill duration with no limit (s)", (u.BackfillDone - u.Start).Seconds(), float64(u.RowsToCopy)/rate, 0.001)
}

// TestBackfillCPUServed: the backfill's CPU counts as its batches are served, in the
// windows their service spans, like ShardBusy. The reads go to 30,000/s from 8 s (1.5
// times the node's 2 cores at 100 µs), so the node's queue (no limit) grows by 10,000 a
// second and the copy's batches, issued on time, wait up to seconds: some are served in a
// later window than they were issued in, and the last is still waiting when the run ends
// at 10 s. The new layout's shards serve the backfill's writes and nothing else, and the
// reads of a batch cost nothing here (read cost 0), so in every window the backfill's CPU
// is exactly the new shards' busy time, and over the run their sum. The old model counted
// a batch's CPU when it was issued, so its total was the rows issued (1 ns a row): at
// least the rows copied, which count the batches served after the end too. Seed 23;
// exact.
func TestBackfillCPUServed(t *testing.T) {
	s := workload.Schedule{{At: 0, Rate: 15_000}, {At: int64(8 * sim.Second), Rate: 15_000}, {At: int64(8 * sim.Second), Rate: 30_000}}
	r := sim.Run(bpModel(23, 0, s, 0, 10*sim.Second))
	g := metrics.MigrationReport(r)
	var total sim.Time
	for w := range r.Windows {
		var busy sim.Time
		for sh := g.Shards; sh < len(r.Shards); sh++ {
			busy += r.ShardBusy[w*len(r.Shards)+sh]
		}
		if g.BackfillBusy[w] != busy {
			t.Errorf("window %d: backfill CPU %v, the new shards were busy %v", w, g.BackfillBusy[w], busy)
		}
		total += busy
	}
	if g.BackfillCPU != total {
		t.Errorf("backfill CPU %v, the new shards were busy %v in the run", g.BackfillCPU, total)
	}
	if g.BackfillCPU >= sim.Time(g.RowsCopied) || g.RowsCopied >= g.RowsToCopy {
		t.Errorf("backfill CPU %v for %d rows copied of %d (1 ns a row): want less, the rows served within the run, and a copy the run's end cut", g.BackfillCPU, g.RowsCopied, g.RowsToCopy)
	}
}

// TestReadBothIgnoresOutbox: with reads = "both" there are no dual writes, so an outbox
// has nothing to carry: a read still visits both layouts (fan-out 2; the outbox used to
// take its new-layout visit away and apply it as a write), and the run is the one
// without an outbox. Seed 11, the model of TestReadBoth; counts, no tolerance.
func TestReadBothIgnoresOutbox(t *testing.T) {
	mk := func(outbox sim.Time) *sim.Result {
		return sim.Run(migModel(11, 1000, 500, 10*sim.Second, 40*sim.Second, Migration{ReadBoth: true, Cutover: 30 * sim.Second, Outbox: outbox}))
	}
	r, plain := mk(50*sim.Millisecond), mk(0)
	if f := r.Streams[1].MaxFanout; f != 2 {
		t.Errorf("reads' fan-out %d with an outbox, want 2 (both layouts)", f)
	}
	for s := range r.Shards {
		if a, b := r.Shards[s].Rows, plain.Shards[s].Rows; a != b {
			t.Errorf("shard %d: %d rows with an outbox, %d without; want the same", s, a, b)
		}
	}
}
