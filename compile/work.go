package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/shardsim/shardsim/internal/splitmix"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Work is what a variant's run costs the engine, predicted before it runs: its requests,
// the subrequests they fan out to (a scan of every shard is one subrequest per shard) and
// the partitions those visit, from a small sample of each stream's requests routed by the
// variant's own planners; the offered load of its busiest node at the streams' peak
// rates; and from those the run's wall time and memory (compile.RunMemory, EstimateWork).
type Work struct {
	Streams []StreamWork
	// Requests, Subrequests and Partitions are the sums over the streams.
	Requests, Subrequests, Partitions float64
	// PeakNodeLoad is the highest offered load of a node, a fraction of its cores, with
	// every stream at its peak rate (the utilization law over the sampled routing).
	PeakNodeLoad float64
	// Seconds is the run's predicted time on one core (EngineRate).
	Seconds float64
	// InService is the mean number of subrequests in service at the streams' peak rates
	// (their CPU seconds per second, at most the cluster's cores).
	InService float64
	// LockLoad is the highest share of time a row lock is held at the streams' peak rates:
	// the peak rate of a locked stream, times the sampled share of its most frequent key,
	// times the mean hold. From saturateLoad on, the key's waiters may pile up to the
	// backlog that stops the run, whatever the nodes' load.
	LockLoad float64
	// LockWaiters is the most lock waiters the locked streams can hold at once: a stream
	// with a lock_timeout holds at most its peak rate times the timeout (a waiter gives up
	// then), a closed-loop one at most its clients, any other up to the backlog that stops
	// the run.
	LockWaiters float64
	// HeldWeight is the memory of the heaviest waiter a mechanism of the scenario may hold
	// back before the nodes' queues (a connection pool, a page latch: sim.Setting's
	// Waiter), in subrequests; 0: none does. Their backlog is not predicted: it is counted
	// up to the one that stops the run.
	HeldWeight float64
}

// StreamWork is one stream's share of Work.
type StreamWork struct {
	Name                              string
	Op                                sim.Op
	Requests, Subrequests, Partitions float64 // over the run
	// FanOut and Parts are the mean subrequests and partitions of one request.
	FanOut, Parts float64
	// RowService is the longest time a sampled subrequest spends reading rows (rows x
	// row_cost), in seconds.
	RowService float64
}

// Units is the run's work in subrequests, with partitions counted where they cost: a
// subrequest's partitions after the first cost the engine about a two-hundredth of a
// subrequest each (BenchmarkScans: 12 subrequests of 120 partitions took 60.9 ns a
// subrequest, of 1,000 partitions 94.5 ns: 0.46 ns a partition against 95 ns).
func (w *Work) Units() float64 {
	return w.Subrequests + max(w.Partitions-w.Subrequests, 0)/partitionsPerSubrequest
}

const partitionsPerSubrequest = 200

// MaxWork bounds Work.Units, as MaxRequests bounds requests: 10^10 subrequests, an
// hour or more of the engine.
const MaxWork = 10_000_000_000

// MaxRowService bounds the time a subrequest spends on its rows: the longest run, so that
// no time the engine computes from it leaves its clock (row_cost = "1s" over two days of
// history made a scan's service pass 2^63 nanoseconds).
const MaxRowService = sim.MaxRowService

// workBudget bounds the partitions a stream's sample visits; between workMinSamples and
// workMaxSamples requests are drawn (fewer when one request visits more than the budget).
const (
	workBudget     = 200_000
	workMinSamples = 2
	workMaxSamples = 400
)

// EstimateWork samples each stream of s (a few hundred requests, deterministic for the
// seed) through the planners a run of s routes by (router), without building its model:
// a replayed stream draws its keys from the table's generators, as explain does.
func EstimateWork(s *scenario.Resolved) *Work { return NewRouting(s).EstimateWork() }

// EstimateWork is EstimateWork of the routing's scenario, through its routing.
func (r *Routing) EstimateWork() *Work {
	s := r.s
	rt := r.table.forRun(s)
	shardNode := Placement(s)
	w := &Work{}
	for _, x := range s.Mechanisms {
		w.HeldWeight = max(w.HeldWeight, x.Waiter())
	}
	end := int64(s.Duration)
	nodeWork := make([]float64, len(s.Nodes)) // CPU seconds per second at the peaks
	total := 0.0
	added, placed := addedLoads(s), ownPlacements(s)
	for i := range s.Streams {
		stream := rt.stream(s, i)
		st, ss := &stream, &s.Streams[i]
		sw := StreamWork{Name: st.Name, Op: st.Op, FanOut: 1, Parts: 1}
		if len(ss.Schedule) > 0 {
			sw.Requests = ss.Integral(0, end)
		}
		peak, _ := schedulePeak(ss, end)
		if ss.Burst != nil {
			peak *= ss.Burst.Factor
		}
		fan, parts, shares, rowService, topKey := sampleWork(s, ss, st, streamSeedOf(st.Name)^0x3f1d)
		sw.RowService = rowService
		if ss.Lock.Mean > 0 {
			w.LockLoad = max(w.LockLoad, peak*topKey*ss.Lock.Mean.Seconds())
			w.LockWaiters = min(w.LockWaiters+lockWaiters(ss, peak), sim.DefaultMaxQueued)
		}
		if fan > 0 {
			sw.FanOut, sw.Parts = fan, parts
		}
		// Each copy of a subrequest on another node (a follower's apply of a write) and each
		// entry on a part's own shards (an index's) is a subrequest of its own.
		copies := 1.0 + float64(len(added[i].Copies)) + float64(len(added[i].Entries))
		sw.Subrequests = sw.Requests * sw.FanOut * copies
		sw.Partitions = sw.Requests * sw.Parts * copies
		w.Streams = append(w.Streams, sw)
		w.Requests += sw.Requests
		w.Subrequests += sw.Subrequests
		w.Partitions += sw.Partitions
		total += addNodeWork(s, st, &added[i], placed, peak, shares, shardNode, nodeWork)
	}
	cores := 0.0
	for n, nd := range s.Nodes {
		cores += float64(nd.Cores)
		w.PeakNodeLoad = max(w.PeakNodeLoad, nodeWork[n]/float64(nd.Cores))
	}
	w.InService = min(total, cores)
	windows := 0.0
	if s.Window > 0 {
		windows = float64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	}
	w.Seconds = (w.Subrequests*nsPerSubrequest(s.Shards)*concurrencyFactor(w.InService) + max(w.Partitions-w.Subrequests, 0)*nsPerPartition +
		windows*float64(max(s.Shards, s.MaxShards)+len(s.Nodes))*nsPerCell) / 1e9
	return w
}

// addNodeWork adds to nodeWork (CPU seconds per second on each node) what stream st does
// at its peak rate: each shard's share on its node, whole (a subrequest the parts spread
// over several nodes counts on its shard's: the busiest node as if it did not spread), the
// copies the model parts add (a follower's apply of a write) on their nodes, and their
// entries on their own shards' nodes (an index's, placed by placed); it returns the sum
// added.
func addNodeWork(s *scenario.Resolved, st *sim.Stream, added *scenario.AddedLoad, placed map[*scenario.Resolved][]int, peak float64, shares []float64, shardNode []int, nodeWork []float64) float64 {
	total := 0.0
	for _, t := range added.Entries {
		// A subrequest of the request's cost on one of the layout's shards, counted as
		// spread evenly over them (an async index's backlog at a node past its cores was
		// estimated as no backlog at all).
		place := placed[t]
		for _, n := range place {
			f := peak * st.Cost.Seconds() / float64(len(place))
			nodeWork[n] += f
			total += f
		}
	}
	for sh, x := range shares { // x: CPU seconds per request on shard sh's node
		at := shardNode[sh]
		nodeWork[at] += peak * x
		total += peak * x
		for _, c := range added.Copies {
			f := peak * x * c.Cost.Seconds() / st.Cost.Seconds()
			nodeWork[(at+c.Next)%len(s.Nodes)] += f
			total += f
		}
	}
	return total
}

// The engine's measured rates (2-core Xeon, Go 1.26, one core, whole runs of `shardsim run`
// timed with /usr/bin/time, outputs included; the runs in scenarios/memory_test.go): a point request
// (one subrequest) over one shard took 129 ns (10 million writes in 1.29 s), a
// subrequest of a scan over 100,000 shards about 700 ns (15 million in 10.5 s; the
// per-shard state no longer stays in the caches), which nsPerSubrequest interpolates as
// the square root of the shards past 2,500; a window of a shard or node's series, with
// its share of the CSV files and charts, about 1 us; a partition past a subrequest's
// first 0.46 ns (BenchmarkScans).
const (
	nsPerPartition = 0.46
	nsPerCell      = 1000
)

func nsPerSubrequest(shards int) float64 {
	return 125 * math.Sqrt(max(1, float64(shards)/2500))
}

// concurrencyFactor is how much slower a subrequest is with inService of them in service
// at once, past a thousand: the event heap deepens and leaves the caches. 300 million
// writes a second of 1 ms on a node of a million cores (300,000 in service) took 324 ns
// a request (15 million in 4.86 s) against 129 ns with a thousand in service: 2.5 times
// for 300 times as many, (n/1000)^0.16.
func concurrencyFactor(inService float64) float64 {
	return math.Pow(max(1, inService/1000), 0.16)
}

// subrequestRate is the subrequests per second the engine serves over shards shards.
func subrequestRate(shards int) float64 { return 1e9 / nsPerSubrequest(shards) }

// EngineRate says, for people, the rate the time estimate assumes.
func EngineRate(shards int) string {
	what := "shards"
	if shards == 1 {
		what = "shard"
	}
	return fmt.Sprintf("at the engine's measured %s subrequests a second over %s %s", count(subrequestRate(shards)), count(float64(shards)), what)
}

// lockWaiters is the most lock waiters locked stream ss can hold at once, at a peak rate
// of peak: up to the backlog that stops the run, at most its peak rate times its
// lock_timeout (a waiter gives up then), and at most its clients for a closed-loop stream
// (a client waits for one write at a time).
func lockWaiters(ss *scenario.StreamSpec, peak float64) float64 {
	waiters := float64(sim.DefaultMaxQueued)
	if ss.LockTimeout > 0 {
		waiters = min(waiters, peak*ss.LockTimeout.Seconds())
	}
	if ss.Clients > 0 {
		waiters = min(waiters, float64(ss.Clients))
	}
	return waiters
}

// Held is the most subrequests the run holds at once: those in service, and when a
// node's offered load at the peaks reaches saturateLoad, the backlog the engine lets
// build before it declares the run saturated (sim.DefaultMaxQueued). When a row lock's
// load reaches it, the backlog is of lock waiters (LockWaiters), each of which weighs
// lockWaiterWeight subrequests (RunMemory's unit). When a mechanism may hold work back
// (HeldWeight), its waiters up to that backlog, which the estimate does not predict.
func (w *Work) Held() float64 {
	held := w.InService
	if w.PeakNodeLoad >= saturateLoad {
		held = w.InService + sim.DefaultMaxQueued
	}
	if w.LockLoad >= saturateLoad {
		held = max(held, w.InService+w.LockWaiters*lockWaiterWeight)
	}
	if w.HeldWeight > 0 {
		held = max(held, w.InService+sim.DefaultMaxQueued*w.HeldWeight)
	}
	return held
}

// lockWaiterWeight is a lock waiter's memory in subrequests waiting for a core: its
// subrequest and request slots, its place in the key's queue and its timeout. One key of
// 50,000 writes a second held 1 ms each (testdata: scenarios/memory_test.go, "lock
// waiters") stopped with 2 million waiters at a peak of 851 MB, against 214 MB for 2
// million subrequests queued for a core: (851 - 35) / (214 - 35) = 4.6.
const lockWaiterWeight = 4.6

// saturateLoad is the offered load from which a run is counted as one that may saturate:
// a little under 1, for the sample's error in the busiest node's share.
const saturateLoad = 0.9

// sampleWork draws requests of a stream (row times uniform over the run, weighted by the
// rate then) and returns the mean subrequests and partitions of one, the CPU seconds
// one request costs each shard (0, 0, nil when the stream issues nothing), the longest
// time a subrequest spends on its rows, and the weighted share of the most frequent row
// key among the sampled requests (of a locked stream; 0 otherwise).
func sampleWork(s *scenario.Resolved, ss *scenario.StreamSpec, st *sim.Stream, seq uint64) (fan, parts float64, shares []float64, rowService, topKey float64) {
	var keys map[uint64]float64
	if ss.Lock.Mean > 0 {
		keys = map[uint64]float64{}
	}
	r := rand.New(rand.NewPCG(s.Seed, seq))
	fields := make([]uint64, len(st.Fields))
	shares = make([]float64, s.Shards)
	var visits []keyspace.Visit
	end := int64(s.Duration)
	totalW, seen := 0.0, 0
	for j := 0; j < workMaxSamples && (j < workMinSamples || seen < workBudget); j++ {
		t := int64(r.Float64() * float64(end))
		w := ss.Schedule.Rate(t)
		visits = planAt(st, r, t, fields, visits)
		totalW += w
		if keys != nil {
			h := uint64(0x9e3779b97f4a7c15)
			for _, f := range st.KeyFields {
				h = splitmix.Mix(h ^ fields[f])
			}
			keys[h] += w
			topKey = max(topKey, keys[h])
		}
		fan += w * float64(len(visits))
		for _, v := range visits {
			rowService = max(rowService, float64(v.Rows)*st.RowCost.Seconds())
			seen += int(v.Partitions)
			parts += w * float64(v.Partitions)
			if int(v.Shard) < len(shares) {
				shares[v.Shard] += w * (float64(v.Partitions)*st.Cost.Seconds() + float64(v.Rows)*st.RowCost.Seconds())
			}
		}
		seen += len(visits)
	}
	if totalW == 0 {
		return 0, 0, nil, rowService, 0
	}
	for sh := range shares {
		shares[sh] /= totalW
	}
	return fan / totalW, parts / totalW, shares, rowService, topKey / totalW
}

// WorkProblem says why a variant's work is too large (Units over MaxWork), naming the
// stream that makes most of it and the keys that make it large, with the key to report
// the problem at; "" when it fits.
func (w *Work) WorkProblem(s *scenario.Resolved) (key, msg string) {
	for i, sw := range w.Streams {
		if sw.RowService > MaxRowService.Seconds() {
			return fmt.Sprintf("streams[%d].row_cost", i), fmt.Sprintf(
				"a subrequest of stream %s would read rows for about %.3g s (%.3g days: its rows x row_cost %s, the rows the write streams put in its range, from table.history on); at most 10000d is allowed, the engine's clock: lower row_cost, table.history or the scan's reach (where, limit)",
				sw.Name, sw.RowService, sw.RowService/86400, sim.Time(s.Streams[i].RowCost))
		}
	}
	if w.Units() <= MaxWork {
		return "", ""
	}
	top := 0
	for i, sw := range w.Streams {
		if sw.Subrequests > w.Streams[top].Subrequests {
			top = i
		}
	}
	sw := w.Streams[top]
	var why []string
	if sw.FanOut >= 1.5 {
		why = append(why, fmt.Sprintf("each visits about %s shards (keyspace.shards = %d)", count(sw.FanOut), s.Shards))
	}
	if sw.Parts >= 2*sw.FanOut && sw.Parts/sw.FanOut >= partitionsPerSubrequest {
		why = append(why, fmt.Sprintf("and about %s partitions", count(sw.Parts)))
	}
	if x := addedLoads(s)[top].Why; x != "" {
		why = append(why, x)
	}
	what := fmt.Sprintf("%.2g %s", sw.Requests, plural(sw.Op))
	if len(why) > 0 {
		what += ": " + strings.Join(why, ", ")
	}
	return fmt.Sprintf("streams[%d]", top), fmt.Sprintf(
		"the run would make about %.2g subrequests, about %s of one core (%s), most of them stream %s's %s; at most %.0e subrequests are allowed: lower streams[%d].rate, keyspace.shards, the scans' reach (where) or the duration",
		w.Units(), units.Seconds(w.Seconds, units.Words), EngineRate(s.Shards), sw.Name, what, float64(MaxWork), top)
}

func plural(op sim.Op) string {
	switch op {
	case sim.Scan:
		return "scans"
	case sim.Read:
		return "reads"
	}
	return "writes"
}

// count writes a count for people: 100,000, 2.5 million.
func count(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("%.3g billion", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.3g million", x/1e6)
	case x >= 1000:
		n := int64(math.Round(x))
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	return fmt.Sprintf("%.0f", x)
}
