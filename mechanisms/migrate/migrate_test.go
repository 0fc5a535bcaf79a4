package migrate

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// migModel is a small cluster for the migration tests: 4 nodes of 2 cores, 8 shards on
// the old layout (modulo 8) and 16 on the new one (modulo 16, two per node), a write
// stream of wRate/s and a read stream of rRate/s over a million uniform ids, both with
// exponential service of mean 100 µs per partition. The migration starts at start.
func migModel(seed uint64, wRate, rRate float64, start, dur sim.Time, g Migration) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	old, next := keyspace.NewModulo(8), keyspace.NewModulo(16)
	st := func(name string, op sim.Op, rate float64) sim.Stream {
		return sim.Stream{Name: name, Op: op, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
			Fields:   []workload.Generator{workload.NewUniform(1_000_000)},
			Planner:  keyspace.NewPointPlanner(d, old, op == sim.Read)}
	}
	g.Planners = []sim.Planner{keyspace.NewPointPlanner(d, next, false), keyspace.NewPointPlanner(d, next, true)}
	g.ShardNode = make([]int, 16)
	for i := range g.ShardNode {
		g.ShardNode[i] = i % 4
	}
	g.Name, g.At = "next", start
	m := &sim.Model{
		Seed: seed, Duration: dur, Window: 10 * sim.Second,
		Nodes:      []sim.Node{{Cores: 2}, {Cores: 2}, {Cores: 2}, {Cores: 2}},
		ShardNode:  []int{0, 1, 2, 3, 0, 1, 2, 3},
		Streams:    []sim.Stream{st("w", sim.Write, wRate), st("r", sim.Read, rRate)},
		Mechanisms: []sim.Setting{&g, operator.Actions{{At: start, Text: "migration to next started"}}},
	}
	return m
}

// TestDualWriteCPU: from the start of the migration every write is served on the old and
// on the new layout, so by the utilization law the new layout's shards are busy
// lambda_w x c (the dual writes' copy) and the nodes lambda_w x (c_old + c_new) +
// lambda_r x c for the live traffic, with c_old = c_new = c = 100 µs here.
// Seed 7; lambda_w = 4,000/s and lambda_r = 2,000/s over 100 s of dual writes (about
// 400,000 writes: the relative standard error of a sum of that many exponential
// services with Poisson counts is sqrt(2/N), about 0.2%); tolerance 2%. The backfill
// has no rows to copy (no history, migration at t = 0), and it never cuts over.
func TestDualWriteCPU(t *testing.T) {
	const wRate, rRate, c = 4000.0, 2000.0, 100e-6
	dur := 100 * sim.Second
	r := sim.Run(migModel(7, wRate, rRate, 0, dur, Migration{Rate: 1000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond, Cutover: sim.CutoverNever}))
	g := metrics.MigrationReport(r)
	if g.Start != 0 || g.RowsToCopy != 0 || g.Cutover != -1 {
		t.Fatalf("start %v, %d rows to copy, cutover %v: want 0, 0, -1", g.Start, g.RowsToCopy, g.Cutover)
	}
	var newBusy, allBusy sim.Time
	for s := range r.Shards {
		if s >= g.Shards {
			newBusy += r.Shards[s].Busy
		}
	}
	for n := range r.Nodes {
		allBusy += r.Nodes[n].Busy
	}
	T := dur.Seconds()
	within(t, "new layout's CPU (cores)", newBusy.Seconds()/T, wRate*c, 0.02)
	within(t, "dual-write CPU (cores)", g.DualCPU.Seconds()/T, wRate*c, 0.02)
	within(t, "cluster CPU (cores)", allBusy.Seconds()/T, wRate*2*c+rRate*c, 0.02)
	if r.Streams[0].MaxFanout != 2 || r.Streams[1].MaxFanout != 1 {
		t.Errorf("fan-out: writes %d, reads %d; want 2 (both layouts) and 1 (the old layout)", r.Streams[0].MaxFanout, r.Streams[1].MaxFanout)
	}
}

// TestBackfillDuration: when the CPU is not binding, the backfill takes RowsToCopy /
// backfill_rate: batches of rate x 10 ms rows leave one period apart, and the last ends
// one batch service after it leaves. Rows to copy: 1,000,000 history rows plus the
// writes served before the start at 20 s (about 500/s x 20 s); rate 50,000 rows/s, so
// about 20.2 s; each copied row costs 2 µs + 5 µs, 0.35 of a core on the node being copied.
// The duration is exact up to the last batch's service (5 ms in 20 s) and the rounding of
// the period: tolerance 0.1%. Seed 3. The cutover follows the backfill: afterwards the
// old layout's shards serve no request at all.
func TestBackfillDuration(t *testing.T) {
	const rate = 50_000.0
	start, dur := 20*sim.Second, 60*sim.Second
	r := sim.Run(migModel(3, 500, 500, start, dur, Migration{Rate: rate, HistoryRows: 1_000_000,
		ReadCost: 2 * sim.Microsecond, WriteCost: 5 * sim.Microsecond, Cutover: sim.CutoverBackfill}))
	g := metrics.MigrationReport(r)
	if g.RowsToCopy < 1_000_000+9_000 || g.RowsToCopy > 1_000_000+11_000 {
		t.Errorf("%d rows to copy, want 1,000,000 plus about 10,000 written before the start", g.RowsToCopy)
	}
	if g.BackfillDone < 0 || g.RowsCopied != g.RowsToCopy {
		t.Fatalf("backfill done at %v with %d of %d rows copied", g.BackfillDone, g.RowsCopied, g.RowsToCopy)
	}
	within(t, "backfill duration (s)", (g.BackfillDone - g.Start).Seconds(), float64(g.RowsToCopy)/rate, 0.001)
	if g.Cutover != g.BackfillDone {
		t.Errorf("cutover at %v, want at the end of the backfill %v", g.Cutover, g.BackfillDone)
	}
	var copied int64
	for _, n := range g.Copied {
		copied += n
	}
	if copied != g.RowsCopied {
		t.Errorf("rows copied per window sum to %d, want %d", copied, g.RowsCopied)
	}
	// The backfill's CPU is known exactly: 7 µs per row (constant service).
	if want := sim.Time(g.RowsToCopy) * 7 * sim.Microsecond; g.BackfillCPU != want {
		t.Errorf("backfill CPU %v, want %v", g.BackfillCPU, want)
	}
	// After the cutover window, no request reaches an old shard.
	for w := int(g.Cutover/r.Window) + 1; w < r.Windows; w++ {
		for s := range g.Shards {
			if n := r.ShardOps[w*len(r.Shards)+s]; n != 0 {
				t.Errorf("window %d: old shard %d served %d subrequests after the cutover", w, s, n)
			}
		}
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

// TestBackfillCPUCap: with max_cpu, the backfill runs at the rate its CPU cap allows,
// MaxCPU x cores / (read cost + write cost) = 0.1 x 2 / (20 µs + 30 µs) = 4,000 rows/s,
// below the 50,000 asked for, and takes RowsToCopy / 4,000 s: 200,000 history rows and
// the writes before the start at 5 s (about 2,500) in about 50.6 s. Seed 5; batches leave
// one period apart as in TestBackfillDuration, so the tolerance is the same 0.1%; the busiest
// node's backfill CPU per window stays at the cap (0.1 of its 2 cores), within 2% (a
// batch of 40 rows is 2 ms of work, 0.01% of a 10 s window, and windows where the copy
// passes from one shard to the next split it between two nodes).
func TestBackfillCPUCap(t *testing.T) {
	const cap, want = 0.1, 4000.0
	start, dur := 5*sim.Second, 70*sim.Second
	r := sim.Run(migModel(5, 500, 0.001, start, dur, Migration{Rate: 50_000, MaxCPU: cap, HistoryRows: 200_000,
		ReadCost: 20 * sim.Microsecond, WriteCost: 30 * sim.Microsecond, Cutover: sim.CutoverNever}))
	g := metrics.MigrationReport(r)
	if g.Rate != want {
		t.Errorf("backfill rate %v rows/s, want the capped %v", g.Rate, want)
	}
	if g.BackfillDone < 0 {
		t.Fatalf("backfill not done: %d of %d rows copied", g.RowsCopied, g.RowsToCopy)
	}
	within(t, "capped backfill duration (s)", (g.BackfillDone - g.Start).Seconds(), float64(g.RowsToCopy)/want, 0.001)
	// In every full window of the copy, the copy's CPU as a share of one node's cores
	// (rows copied x (read + write cost) / window / 2 cores), as if read and write shared
	// a node: at most the cap.
	for w := 1; w < int(g.BackfillDone/r.Window); w++ {
		share := float64(g.Copied[w]) * 50e-6 / r.Window.Seconds() / 2
		if share > cap*1.02 {
			t.Errorf("window %d: the copy took %.3f of a node's cores, over the cap %.2f", w, share, cap)
		}
	}
}

// TestVerificationPeriod: a migration at 10 s cuts over at 20 s (a clock time) and keeps
// writing to the old layout for a 10 s verification period. The second copy of every write
// goes to the new layout during [10 s, 20 s) and to the old one during [20 s, 30 s), so by
// the utilization law DualCPU = lambda_w x c x 20 s = 4,000/s x 100 µs x 20 s = 8 core-s.
// Seed 9, about 80,000 writes: relative standard error sqrt(2/N), 0.5%; tolerance 3%.
// From 30 s on (window 3) the old shards serve nothing but the backfill, which has long
// finished (10,000 rows at 1e6 rows/s).
func TestVerificationPeriod(t *testing.T) {
	r := sim.Run(migModel(9, 4000, 2000, 10*sim.Second, 50*sim.Second, Migration{Rate: 1e6, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond,
		Cutover: 20 * sim.Second, Verify: 10 * sim.Second}))
	g := metrics.MigrationReport(r)
	if g.Cutover != 20*sim.Second || g.OldWritesEnd != 30*sim.Second {
		t.Fatalf("cutover %v, old writes end %v; want 20s and 30s", g.Cutover, g.OldWritesEnd)
	}
	within(t, "dual-write CPU (core-s)", g.DualCPU.Seconds(), 4000*100e-6*20, 0.03)
	for w := 0; w < r.Windows; w++ {
		var old int64
		for s := range g.Shards {
			old += r.ShardOps[w*len(r.Shards)+s]
		}
		if (w < 3) != (old > 0) {
			t.Errorf("window %d: old shards served %d subrequests; want some before 30 s and none after", w, old)
		}
	}
}

// TestOutbox: with an outbox the client waits for the old layout only (a write's fan-out
// is 1) and each copy reaches the new layout 50 ms later, costing the same CPU: by the
// utilization law the dual writes take lambda_w x c = 0.4 cores, as in TestDualWriteCPU
// (same seed 7, model and tolerance 2%), and the new layout gains a row for every write
// but those still in the outbox at the end. The write mean latency is below the
// synchronous dual writes', whose fork-join waits for the slower of two subrequests.
func TestOutbox(t *testing.T) {
	const wRate, rRate, c = 4000.0, 2000.0, 100e-6
	dur := 100 * sim.Second
	mk := func(outbox sim.Time) *sim.Result {
		return sim.Run(migModel(7, wRate, rRate, 0, dur, Migration{Rate: 1000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond,
			Cutover: sim.CutoverNever, Outbox: outbox}))
	}
	r, sync := mk(50*sim.Millisecond), mk(0)
	g := metrics.MigrationReport(r)
	within(t, "outbox dual-write CPU (cores)", g.DualCPU.Seconds()/dur.Seconds(), wRate*c, 0.02)
	if f := r.Streams[0].MaxFanout; f != 1 {
		t.Errorf("write fan-out %d with an outbox, want 1", f)
	}
	var rows int64
	for s := g.Shards; s < len(r.Shards); s++ {
		rows += r.Shards[s].Rows
	}
	if w := r.Streams[0].Offered; rows > w || rows < w-int64(wRate*0.1) {
		t.Errorf("new layout gained %d rows from %d writes; want all but the last 50 ms's", rows, w)
	}
	if a, b := r.Streams[0].MeanMillis(), sync.Streams[0].MeanMillis(); a >= b {
		t.Errorf("write mean %.3f ms with an outbox, want below the synchronous dual writes' %.3f ms", a, b)
	}
}

// TestReadBoth: growing a layout without a copy (a salt's buckets from N to 2N). From
// 10 s, writes go to the new layout only and every read visits both layouts (fan-out 2),
// until the cutover at 30 s; no backfill. Seed 11, writes 1,000/s and reads 500/s over
// 40 s: the old shards gain no row after 10 s (their rows are exactly those written
// before), and in windows 1 and 2 serve reads only, about 500/s x 10 s = 5,000 a window
// (Poisson: standard deviation 71, tolerance 5%); after the cutover nothing.
func TestReadBoth(t *testing.T) {
	r := sim.Run(migModel(11, 1000, 500, 10*sim.Second, 40*sim.Second, Migration{ReadBoth: true, Cutover: 30 * sim.Second}))
	g := metrics.MigrationReport(r)
	if g.Start != 10*sim.Second || g.Cutover != 30*sim.Second || g.RowsToCopy != 0 || g.BackfillDone != -1 {
		t.Fatalf("start %v, cutover %v, %d rows to copy, backfill done %v: want 10s, 30s, no backfill", g.Start, g.Cutover, g.RowsToCopy, g.BackfillDone)
	}
	if w, rd := r.Streams[0].MaxFanout, r.Streams[1].MaxFanout; w != 1 || rd != 2 {
		t.Errorf("fan-out: writes %d, reads %d; want 1 (the new layout) and 2 (both)", w, rd)
	}
	var oldRows, oldOps [4]int64
	for s := range g.Shards {
		oldRows[0] += r.Shards[s].Rows
		for w := range 4 {
			oldOps[w] += r.ShardOps[w*len(r.Shards)+s]
		}
	}
	if oldRows[0] > 10_000*11/10 || oldRows[0] < 10_000*9/10 {
		t.Errorf("old shards hold %d rows, want the writes of the first 10 s only (about 10,000)", oldRows[0])
	}
	for w := 1; w <= 2; w++ {
		within(t, fmt.Sprintf("old shards' reads in window %d", w), float64(oldOps[w]), 5000, 0.05)
	}
	if oldOps[3] != 0 {
		t.Errorf("window 3 (after the cutover): old shards served %d subrequests, want none", oldOps[3])
	}
}

// TestPartitionsStopAtMigration: hot partitions are counted by the old layout's key
// design, so a write stream stops counting them when the migration starts (its writes
// plan both layouts from then on), and says when and out of how many requests. Seed 3;
// the migration starts at 20 s, half of the run: the counted writes are about half the
// sampled ones (2,000 writes/s x 20 s / 64 = 625 expected; within 20%, 5 standard
// deviations of a Poisson count).
func TestPartitionsStopAtMigration(t *testing.T) {
	m := migModel(3, 2000, 500, 20*sim.Second, 40*sim.Second, Migration{Rate: 1000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond, Cutover: sim.CutoverNever})
	m.Streams[0].KeyFields = []int{0}
	m.Streams[1].KeyFields = []int{0}
	r := sim.Run(m)
	w := &r.Streams[0]
	if !w.PartitionsStopped || w.PartitionsUntil != 20*sim.Second {
		t.Fatalf("writes: stopped %v at %v, want at 20s", w.PartitionsStopped, w.PartitionsUntil)
	}
	within(t, "partitions counted", float64(w.PartitionsCounted), 2000*20/64.0, 0.2)
	within(t, "requests offered before the stop", float64(w.PartitionsOffered), 2000*20, 0.05)
	if r.Streams[1].PartitionsStopped {
		t.Errorf("reads stopped counting partitions, yet they plan as before (no cutover)")
	}
}

// TestTenantMigration moves tenant 0 alone to 2 shards of its own on nodes 2 and 3. The
// table is keyed by its tenant (8 tenants, modulo 8 over 4 nodes of 2 cores); tenant 0
// has weight 7 of 14, so share p = 1/2 of every stream's requests and rows. Closed forms
// (utilization law, rows / rate), with c = 100 µs, lambda_w = 4,000/s, lambda_r = 2,000/s:
//   - rows to copy: p x (1,000,000 history rows + the rows written before the start at
//     10 s, about 40,000), within 0.5% (the written rows are Poisson: 0.5%);
//   - backfill duration: rows / 50,000 rows/s, within 0.1% (CPU does not bind: 2 µs +
//     5 µs per row is 0.35 of a core), read from the tenant's old shard only;
//   - during the dual writes, the new layout's CPU is p x lambda_w x c = 0.2 core: only
//     the tenant's writes are doubled;
//   - after the cutover, the new shards serve p x (lambda_w + lambda_r) x c = 0.3 core
//     and the old ones (1 - p) x (lambda_w + lambda_r) x c = 0.3 core: the tenant's load
//     moved, the others' stayed. Seed 5; over 20 to 30 s windows of about 60,000
//     requests each (0.6% standard error): tolerance 3%.
func TestTenantMigration(t *testing.T) {
	const wRate, rRate, c, p, rate = 4000.0, 2000.0, 100e-6, 0.5, 50_000.0
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	old, next := keyspace.NewModulo(8), keyspace.NewModulo(2)
	st := func(name string, op sim.Op, rate float64) sim.Stream {
		return sim.Stream{Name: name, Op: op, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
			Fields:   []workload.Generator{workload.NewCategorical(8, []float64{7, 1, 1, 1, 1, 1, 1, 1})},
			Planner:  keyspace.NewPointPlanner(d, old, op == sim.Read)}
	}
	start, dur := 10*sim.Second, 60*sim.Second
	// The tenant's old shard: where the old layout plans its key.
	from := int(keyspace.NewPointPlanner(d, old, false).Plan(nil, nil, []uint64{0}, 0)[0].Shard)
	g := &Migration{At: start, Rate: rate, HistoryRows: 1_000_000, ReadCost: 2 * sim.Microsecond, WriteCost: 5 * sim.Microsecond,
		Cutover: sim.CutoverBackfill, Name: "tenant 0", ShardNode: []int{2, 3},
		Planners: []sim.Planner{keyspace.NewPointPlanner(d, next, false), keyspace.NewPointPlanner(d, next, true)},
		Tenant:   &Tenant{Field: 0, Value: 0, Share: p, From: []int{from}}}
	r := sim.Run(&sim.Model{Seed: 5, Duration: dur, Window: 10 * sim.Second,
		Nodes:      []sim.Node{{Cores: 2}, {Cores: 2}, {Cores: 2}, {Cores: 2}},
		ShardNode:  []int{0, 1, 2, 3, 0, 1, 2, 3},
		Streams:    []sim.Stream{st("w", sim.Write, wRate), st("r", sim.Read, rRate)},
		Mechanisms: []sim.Setting{g, operator.Actions{{At: start, Text: "tenant 0 moves"}}}})
	res := metrics.MigrationReport(r)
	within(t, "tenant rows to copy", float64(res.RowsToCopy), p*(1_000_000+wRate*start.Seconds()), 0.005)
	if res.BackfillDone < 0 || res.Cutover != res.BackfillDone || res.RowsCopied != res.RowsToCopy {
		t.Fatalf("backfill done %v, cutover %v, %d of %d rows", res.BackfillDone, res.Cutover, res.RowsCopied, res.RowsToCopy)
	}
	within(t, "tenant backfill duration (s)", (res.BackfillDone - res.Start).Seconds(), float64(res.RowsToCopy)/rate, 0.001)
	busy := func(from, to, w0, w1 int) float64 {
		var b sim.Time
		for w := w0; w < w1; w++ {
			for s := from; s < to; s++ {
				b += r.ShardBusy[w*len(r.Shards)+s]
			}
		}
		return b.Seconds() / (float64(w1-w0) * r.Window.Seconds())
	}
	// Window 1 ([10 s, 20 s)) is inside the dual writes (the backfill ends near 20.4 s);
	// the backfill's writes (5 µs a row) are counted on the new shards too: take them off.
	dualNew := busy(8, 10, 1, 2) - rate*5e-6
	within(t, "dual writes' CPU on the tenant's shards (cores)", dualNew, p*wRate*c, 0.03)
	within(t, "tenant's shards after the cutover (cores)", busy(8, 10, 3, 6), p*(wRate+rRate)*c, 0.03)
	within(t, "other tenants' shards after the cutover (cores)", busy(0, 8, 3, 6), (1-p)*(wRate+rRate)*c, 0.03)
	// The tenant's old shard keeps the other tenants hashed to it and loses the tenant's
	// requests: p x (lambda_w + lambda_r) x 10 s = 30,000 a window, window 0 against 3 to 5.
	ops := func(w int) float64 { return float64(r.ShardOps[w*len(r.Shards)+from]) }
	within(t, "tenant's requests gone from its old shard (per window)", ops(0)-(ops(3)+ops(4)+ops(5))/3, p*(wRate+rRate)*10, 0.03)
}

// TestTenantMoveScatterScan: a scan of every tenant (Tenant.All) visits the old layout's
// 8 shards before the cutover and, after it, the tenant's 2 shards too: its fan-out goes
// from 8 to 10, and the tenant's shards serve its subrequests only after the cutover.
// Seed 9, one scan every 10 ms; counts, no tolerance.
func TestTenantMoveScatterScan(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	w := sim.Stream{Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 1000}}),
		Fields:   []workload.Generator{workload.NewCategorical(8, []float64{7, 1, 1, 1, 1, 1, 1, 1})},
		Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(8), false)}
	sc := sim.Stream{Name: "scan", Op: sim.Scan, Cost: 100 * sim.Microsecond,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 100}}),
		Fields:   []workload.Generator{nil}, Planner: keyspace.NewScatterPlanner(8)}
	g := &Migration{At: 5 * sim.Second, Rate: 100_000, HistoryRows: 10_000, ReadCost: sim.Microsecond, WriteCost: sim.Microsecond,
		Cutover: sim.CutoverBackfill, Name: "tenant 0", ShardNode: []int{2, 3},
		Planners: []sim.Planner{keyspace.NewPointPlanner(d, keyspace.NewModulo(2), false), keyspace.NewScatterPlanner(2)},
		Tenant:   &Tenant{Field: 0, Value: 0, Share: 0.5, From: []int{0}, All: []bool{false, true}}}
	r := sim.Run(&sim.Model{Seed: 9, Duration: 30 * sim.Second, Window: 10 * sim.Second,
		Nodes: []sim.Node{{Cores: 2}, {Cores: 2}, {Cores: 2}, {Cores: 2}}, ShardNode: []int{0, 1, 2, 3, 0, 1, 2, 3},
		Streams: []sim.Stream{w, sc}, Mechanisms: []sim.Setting{g, operator.Actions{{At: 5 * sim.Second}}}})
	if c := metrics.MigrationReport(r).Cutover; c < 0 || c >= 10*sim.Second {
		t.Fatalf("cutover at %v, want within the first window", c)
	}
	if got := r.Streams[1].MaxFanout; got != 10 {
		t.Errorf("the scan of every tenant visits at most %d shards, want 8 + 2 after the cutover", got)
	}
	// In windows 1 and 2 the new shards serve the tenant's writes and every scan: about
	// 10 s x (500 writes + 100 scans); at least the scans' 2 x 1,000 subrequests.
	for wi := 1; wi < 3; wi++ {
		n := r.ShardOps[wi*len(r.Shards)+8] + r.ShardOps[wi*len(r.Shards)+9]
		if n < 2*900+4500 {
			t.Errorf("window %d: the tenant's shards served %d subrequests, want about 7,000", wi, n)
		}
	}
}

// TestBackfillNearZeroCopiesNothing: a backfill rate of 1e-300 rows/s, or a max_cpu of
// 1e-300 under a rate of 50,000, copies nothing in a 70 s run (the period's conversion from
// an infinite float came out negative and the copy ran flat out, done within the run).
func TestBackfillNearZeroCopiesNothing(t *testing.T) {
	for _, g := range []Migration{
		{Rate: 1e-300, HistoryRows: 200_000, ReadCost: 20 * sim.Microsecond, WriteCost: 30 * sim.Microsecond, Cutover: sim.CutoverNever},
		{Rate: 50_000, MaxCPU: 1e-300, HistoryRows: 200_000, ReadCost: 20 * sim.Microsecond, WriteCost: 30 * sim.Microsecond, Cutover: sim.CutoverNever},
	} {
		r := sim.Run(migModel(5, 500, 0.001, 5*sim.Second, 70*sim.Second, g))
		if m := metrics.MigrationReport(r); m.RowsCopied > 1 || m.BackfillDone >= 0 {
			t.Errorf("rate %g, max_cpu %g: %d of %d rows copied, done at %v; want at most the first batch's row and not done",
				g.Rate, g.MaxCPU, m.RowsCopied, m.RowsToCopy, m.BackfillDone)
		}
	}
	if p := sim.CopyPeriod(1, 5e-324); p != 10000*24*sim.Hour { // the longest period
		t.Errorf("period at the least rate: %v", p)
	}
}

// TestMigrationWithReplicas: a migration runs on a cluster whose shards have followers
// (a tenant's move picks its nodes among them, part.go): the backfill copies every
// row and the cutover happens, the writes of both layouts applied on the followers too.
// The copies of a rebalance are refused with replicas (Core.CopyBy took that for every
// Copier, and a run with a migration and replicas panicked).
func TestMigrationWithReplicas(t *testing.T) {
	m := migModel(3, 500, 500, 2*sim.Second, 20*sim.Second, Migration{Rate: 50_000, HistoryRows: 100_000,
		ReadCost: sim.Microsecond, WriteCost: sim.Microsecond, Cutover: sim.CutoverBackfill})
	m.Mechanisms = append([]sim.Setting{replicas.Replicas{Followers: 1}}, m.Mechanisms...)
	g := metrics.MigrationReport(sim.Run(m))
	if g.RowsCopied != g.RowsToCopy || g.RowsToCopy < 100_000 || g.Cutover < 0 {
		t.Errorf("%d of %d rows copied, cutover at %v: want every row copied and a cutover", g.RowsCopied, g.RowsToCopy, g.Cutover)
	}
}
