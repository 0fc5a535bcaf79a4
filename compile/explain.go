package compile

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Explanation is what a variant's design implies before any simulation: where each stream's
// requests go and the offered load of every shard and node by the utilization law
// (load = rate x cost x partitions / cores).
type Explanation struct {
	Variant   string
	Key       string
	NodeShard [][]int // the shards of each node
	Streams   []StreamPlan
	Shards    []OfferedLoad
	Nodes     []OfferedLoad
	// Notes say what the figures assume about the variant's mechanisms (where its rows are
	// served, what a mechanism's figures leave out), one sentence each; empty without them.
	Notes []string
}

// StreamPlan is the fan-out of one request of a stream, and its rates.
type StreamPlan struct {
	Name     string
	Op       sim.Op
	MeanRate float64 // requests per second, averaged over the run
	PeakRate float64 // the schedule's highest rate within the run (it is linear between points)
	// PeakAt is the instant, from the start of the run, that stands for the stream's peak:
	// where its schedule reaches PeakRate, and where the cluster's offered work peaks when
	// the stream is at PeakRate then too (a constant rate, a plateau), so that the streams'
	// peaks line up; otherwise the earliest instant at PeakRate.
	PeakAt        sim.Time
	Subrequests   float64 // mean shards visited per request
	MaxSubrequest int
	Partitions    float64 // mean partitions visited per request
	Rows          float64 // mean rows read per request (a scan with a row model; else 0)
	// Shares[s] is the mean number of partitions a request reads on shard s, over the run;
	// for a scan that reads rows, its rows count too, as row_cost / cost of a partition
	// each, so that Shares x cost is the work.
	Shares []float64
	// PeakShares[s] is the same over the requests of the window (the scenario's window
	// length) that holds PeakAt: the routing at the peak. It differs from Shares when the
	// key holds a time bucket (hour(ts), day(ts)): the run's buckets spread over many
	// shards, the current one over few.
	PeakShares []float64
	// Cost is the CPU time of one partition of a request (the stream's cost), and Work
	// the core-seconds a second the stream offers the cluster at PeakRate with the peak's
	// routing, what the model parts add on other nodes included (scenario.ModelPart.Load:
	// a follower's apply of a write): rate x cost x partitions, the stream's part of the
	// nodes' offered load.
	Cost sim.Time
	Work float64
}

// OfferedLoad is the offered load of a shard or node as a fraction of its node's cores: Mean at
// every stream's mean rate with the run's routing (StreamPlan.Shares), Peak the highest
// at any instant of the run, every stream at its rate then with the routing of the window
// then (peakWork), reached first at PeakAt. Above 1 the node cannot keep up. Where a model
// part spreads a shard's subrequests over several nodes, a shard's load is its own node's
// share, and a node's load includes what the parts put on it for other nodes' shards
// (scenario.ModelPart.Load: the writes a follower applies and, with read_from = "any", its
// share of the reads).
type OfferedLoad struct {
	ID    int
	Node  int
	Cores int
	Mean  float64
	Peak  float64
	// PeakAt is the instant, from the start of the run, at which Peak is offered: with
	// a time-bucketed key, not always the streams' peak (the last instant of an hour may
	// load its shard more than the busiest instant loads any).
	PeakAt sim.Time
}

// explainBudget bounds the partitions sampled per stream; between explainMinSamples and
// explainMaxSamples requests are sampled.
const (
	explainBudget     = 2_000_000
	explainMinSamples = 2_000
	explainMaxSamples = 100_000
)

// Explain samples each stream's requests through the variant's own planners (row times
// uniform over the run, weighted by the rate at that time; then again within the window
// of the stream's peak) and applies the utilization law. It is deterministic for the
// scenario's seed.
func Explain(name string, s *scenario.Resolved) *Explanation { return NewRouting(s).Explain(name) }

// Explain is Explain of the routing's scenario, through its routing.
func (r *Routing) Explain(name string) *Explanation {
	s, m := r.s, r.Model()
	ex := &Explanation{Variant: name, Key: KeyDescription(s), NodeShard: make([][]int, len(s.Nodes))}
	shardNode := m.ShardNode
	for sh, n := range shardNode {
		ex.NodeShard[n] = append(ex.NodeShard[n], sh)
	}
	end := int64(s.Duration)
	for i := range m.Streams {
		ex.Streams = append(ex.Streams, planStream(s, &s.Streams[i], &m.Streams[i], end))
	}
	// The peak windows, now that every stream's work per request is known.
	busiest := busiestInstant(s, m.Streams, ex.Streams)
	for i := range ex.Streams {
		planPeak(s, &s.Streams[i], &m.Streams[i], &ex.Streams[i], busiest, end)
	}

	w := &offeredWork{s: s, streams: m.Streams, shardNode: shardNode, added: addedLoads(s)}
	shardMean := make([]float64, s.Shards) // core-seconds per second, on the leader
	nodeWorkMean := make([]float64, len(s.Nodes))
	for i := range ex.Streams {
		w.add(shardMean, nodeWorkMean, i, ex.Streams[i].MeanRate, ex.Streams[i].Shares)
		own, ownNodes := make([]float64, s.Shards), make([]float64, len(s.Nodes))
		w.add(own, ownNodes, i, ex.Streams[i].PeakRate, ex.Streams[i].PeakShares)
		ex.Streams[i].Cost = m.Streams[i].Cost
		for _, x := range ownNodes {
			ex.Streams[i].Work += x
		}
	}
	shardPeak, nodeWorkPeak, shardAt, nodeAt := peakWork(s, m.Streams, ex.Streams, busiest, w)
	for sh, n := range shardNode {
		cores := float64(s.Nodes[n].Cores)
		ex.Shards = append(ex.Shards, OfferedLoad{ID: sh, Node: n, Cores: s.Nodes[n].Cores, Mean: shardMean[sh] / cores, Peak: shardPeak[sh] / cores, PeakAt: sim.Time(shardAt[sh])})
	}
	for n := range s.Nodes {
		cores := float64(s.Nodes[n].Cores)
		ex.Nodes = append(ex.Nodes, OfferedLoad{ID: n, Node: n, Cores: s.Nodes[n].Cores, Mean: nodeWorkMean[n] / cores, Peak: nodeWorkPeak[n] / cores, PeakAt: sim.Time(nodeAt[n])})
	}
	ex.Notes = explainNotes(s, m)
	return ex
}

// planStream is a stream's plan over the run [0, end): its mean and peak rates (bursts
// aside) and the routing of a sample of its requests.
func planStream(s *scenario.Resolved, ss *scenario.StreamSpec, st *sim.Stream, end int64) StreamPlan {
	explainTrace(st, ss)
	plan := StreamPlan{Name: st.Name, Op: st.Op}
	plan.MeanRate = ss.Integral(0, end) / s.Duration.Seconds()
	plan.PeakRate, _ = schedulePeak(ss, end)
	run := sampleStream(s, ss, st, 0, end, streamSeedOf(st.Name))
	plan.Shares, plan.Subrequests, plan.MaxSubrequest, plan.Partitions = run.shares, run.subrequests, run.maxSubrequest, run.partitions
	plan.Rows = run.rows
	return plan
}

// planPeak sets plan's peak: the busiest instant of the cluster when the stream is at
// its peak rate then, else its own earliest peak; the routing in the window that holds
// it; and the peak rate inside a burst.
func planPeak(s *scenario.Resolved, ss *scenario.StreamSpec, st *sim.Stream, plan *StreamPlan, busiest, end int64) {
	at := busiest
	if ss.Schedule.Rate(at) < plan.PeakRate {
		_, at = schedulePeak(ss, end)
	}
	plan.PeakAt = sim.Time(at)
	from, to := windowOf(at, int64(s.Window), end)
	// The same random numbers as the run's sample: where the routing does not depend
	// on time the two samples draw the same keys, so Peak differs from Mean by the
	// rates alone and not by sampling noise.
	plan.PeakShares = sampleStream(s, ss, st, from, to, streamSeedOf(st.Name)).shares
	if ss.Burst != nil {
		plan.PeakRate *= ss.Burst.Factor // inside a burst
	}
}

// offeredWork applies the utilization law to a model's streams: the core-seconds a
// stream's requests offer to each shard's node and to the nodes the model parts add work
// on (scenario.ModelPart.Load: a follower's apply of a write), per partition they read.
type offeredWork struct {
	s         *scenario.Resolved
	streams   []sim.Stream
	shardNode []int
	added     []scenario.AddedLoad // by stream
}

// own is the core-seconds per request of stream i on a shard's node, for parts
// partitions: its share when the subrequest is spread over several nodes.
func (w *offeredWork) own(i int, parts float64) float64 {
	work := parts * w.streams[i].Cost.Seconds()
	if n := w.added[i].Spread; n > 0 {
		work /= float64(n + 1) // the shard's node's share; each node it spreads to takes as much
	}
	return work
}

// add adds to shard and node the core-seconds per second of stream i at rate with the
// routing shares.
func (w *offeredWork) add(shard, node []float64, i int, rate float64, shares []float64) {
	a := &w.added[i]
	if a.Elsewhere {
		return // its visits are another layout's shards, which these figures leave out (the part's note)
	}
	nodes := len(w.s.Nodes)
	for sh, share := range shares {
		at := w.shardNode[sh]
		shard[sh] += rate * w.own(i, share)
		node[at] += rate * w.own(i, share)
		for k := 1; k <= a.Spread; k++ {
			node[(at+k)%nodes] += rate * w.own(i, share)
		}
		for _, c := range a.Copies {
			node[(at+c.Next)%nodes] += rate * (share * c.Cost.Seconds())
		}
	}
}

// peakWork returns the highest work (core-seconds per second) offered to each shard and
// node at any instant of the run, and the instant it is reached (the earliest on ties).
// Each stream's rate is linear between its schedule's points (a burst counts at its
// factor throughout, an upper bound), and its routing changes only where a time bucket of
// the key (hour(ts), bucket(ts, "15m")) turns over, so a shard's work peaks at a schedule
// point, on either side of a bucket's boundary, at the start or the end of the run. At
// each such instant the routing is sampled over the window that holds it (a key without a
// time bucket routes as in the stream's peak window at every instant).
func peakWork(s *scenario.Resolved, streams []sim.Stream, plans []StreamPlan, busiest int64, w *offeredWork) (shard, node []float64, shardAt, nodeAt []int64) {
	end := int64(s.Duration)
	ts, timed := peakInstants(s, busiest)
	shard, node = make([]float64, s.Shards), make([]float64, len(s.Nodes))
	shardAt, nodeAt = make([]int64, s.Shards), make([]int64, len(s.Nodes))
	sampled := make([]map[int64][]float64, len(streams)) // per stream, by window start
	for i := range sampled {
		// The stream's peak window is sampled already, from the same random numbers.
		from, _ := windowOf(int64(plans[i].PeakAt), int64(s.Window), end)
		sampled[i] = map[int64][]float64{from: plans[i].PeakShares}
	}
	atShard, atNode := make([]float64, s.Shards), make([]float64, len(s.Nodes))
	for _, t := range ts {
		clear(atShard)
		clear(atNode)
		for i := range streams {
			ss := &s.Streams[i]
			rate := ss.Schedule.Rate(t)
			if ss.Burst != nil {
				rate *= ss.Burst.Factor
			}
			shares := plans[i].PeakShares
			if timed {
				from, to := windowOf(t, int64(s.Window), end)
				if shares = sampled[i][from]; shares == nil {
					shares = sampleStream(s, ss, &streams[i], from, to, streamSeedOf(streams[i].Name)).shares
					sampled[i][from] = shares
				}
			}
			w.add(atShard, atNode, i, rate, shares)
		}
		keepHighest(shard, shardAt, atShard, t)
		keepHighest(node, nodeAt, atNode, t)
	}
	return shard, node, shardAt, nodeAt
}

// peakInstants are the instants at which a shard's work can peak, sorted without
// repeats: busiest, each stream's schedule points and the run's ends (peakCandidates),
// and either side of every boundary of a time bucket of the key within the run; timed
// says that the key has a time bucket, so that its routing changes with time.
func peakInstants(s *scenario.Resolved, busiest int64) (ts []int64, timed bool) {
	end := int64(s.Duration)
	ts = []int64{busiest}
	for i := range s.Streams {
		ts = peakCandidates(&s.Streams[i], end, ts)
	}
	for _, p := range s.Parts {
		if p.Kind != keyspace.TimeBucketPart || p.Width <= 0 {
			continue
		}
		timed = true
		// Boundaries where (t + Start) is a multiple of the width, within the run.
		clock := int64(s.Start)
		for b := (clock/p.Width + 1) * p.Width; b-clock < end; b += p.Width {
			if t := b - clock; t > 0 {
				ts = append(ts, t-1, t)
			}
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts), timed
}

// keepHighest raises each high[k] to at[k] where at[k] is higher, noting the instant t.
func keepHighest(high []float64, when []int64, at []float64, t int64) {
	for k, v := range at {
		if v > high[k] {
			high[k], when[k] = v, t
		}
	}
}

// schedulePeak returns a stream's highest scheduled rate within [0, end) and the earliest
// instant it is reached (bursts aside). The rate is linear between the schedule's points
// and constant outside them, so the highest rate is at a point, at 0 or at end-1.
func schedulePeak(ss *scenario.StreamSpec, end int64) (rate float64, at int64) {
	for _, t := range peakCandidates(ss, end, nil) {
		if r := ss.Schedule.Rate(t); r > rate {
			rate, at = r, t
		}
	}
	return rate, at
}

// peakCandidates appends to ts, in increasing order and without repeats, the instants of
// [0, end) where a piecewise-linear schedule can peak: 0, end-1, and its points within
// with the instant before each (where a step down, two points at one instant, peaks).
func peakCandidates(ss *scenario.StreamSpec, end int64, ts []int64) []int64 {
	ts = append(ts, 0, end-1)
	for _, p := range ss.Schedule {
		if p.At > 0 && p.At < end {
			ts = append(ts, p.At-1, p.At)
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// busiestInstant returns the earliest instant of the run at which the streams' offered
// work (rate x cost x partitions per request, bursts aside) is highest. Each stream's
// work is linear between its schedule's points, so the sum peaks at one of them, at 0 or
// at the last instant.
func busiestInstant(s *scenario.Resolved, streams []sim.Stream, plans []StreamPlan) int64 {
	end := int64(s.Duration)
	var ts []int64
	for i := range s.Streams {
		ts = peakCandidates(&s.Streams[i], end, ts)
	}
	best, at := -1.0, int64(0)
	for _, t := range ts {
		work := 0.0
		for i := range s.Streams {
			work += s.Streams[i].Schedule.Rate(t) * (streams[i].Cost.Seconds()*plans[i].Partitions + streams[i].RowCost.Seconds()*plans[i].Rows)
		}
		if work > best {
			best, at = work, t
		}
	}
	return at
}

// windowOf returns the window of length window that holds t, cut at the end of the run: the
// whole run when window is not positive.
func windowOf(t, window, end int64) (from, to int64) {
	if window <= 0 {
		return 0, end
	}
	from = t / window * window
	return from, min(from+window, end)
}

// explainNotes says how the variant's mitigations enter the figures, or that they do not;
// m is the variant's model (where a tenant's new shards go).
func explainNotes(s *scenario.Resolved, m *sim.Model) []string {
	notes := layoutNotes(s)
	for _, x := range s.Mechanisms {
		if note := x.Note(); note != "" {
			notes = append(notes, note)
		}
	}
	for _, p := range scenario.ModelParts() {
		// What the model parts' figures leave out, in their Build order.
		if p.Note == nil {
			continue
		}
		if note := p.Note(s, m); note != "" {
			notes = append(notes, note)
		}
	}
	return append(notes, streamNotes(s)...)
}

// layoutNotes are the notes on where the rows are served: the mechanisms'
// (scenario.RegisterLayoutNote: followers, automatic splits, partition limits), then the
// key design's hot-key copies.
func layoutNotes(s *scenario.Resolved) []string {
	notes := s.LayoutNotes()
	if s.Copies != nil {
		notes = append(notes, fmt.Sprintf("hot-key copies: a write of one of the %d copied %s values is counted on each of its %d copies, a read on one", len(s.Copies.Keys), s.FieldNames[s.Copies.Field], s.Copies.Count))
	}
	return notes
}

// streamNotes are the notes on each stream, in the streams' order: its row locks, which
// the figures leave out, and its closed loop.
func streamNotes(s *scenario.Resolved) []string {
	var notes []string
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Lock.Mean > 0 {
			notes = append(notes, fmt.Sprintf("the figures ignore row locks: each %s write holds its row's lock for %s on average, so one row (partition key) takes at most %.0f of them a second, whatever its node's cores",
				ss.Name, ss.Lock.Mean, 1/ss.Lock.Mean.Seconds()))
		}
		if ss.Clients > 0 && len(ss.Schedule) > 0 {
			notes = append(notes, fmt.Sprintf("%s is closed-loop: its rate is what its %d clients would issue if nothing queued (%.0f/s); queueing slows them down", ss.Name, ss.Clients, ss.Schedule[0].Rate))
		}
	}
	return notes
}

// sample is what planning sampled requests of a stream found: per request, the mean
// partitions on each shard, shards visited and partitions visited, and the most shards one
// request visited.
type sample struct {
	shares        []float64
	subrequests   float64
	partitions    float64
	rows          float64
	maxSubrequest int
}

// planAt plans one request of stream st issued at t, as the engine would (its row's age,
// its field values, its planner), drawing from r; fields is scratch for the field values,
// and the visits are appended to visits[:0].
func planAt(st *sim.Stream, r *rand.Rand, t int64, fields []uint64, visits []keyspace.Visit) []keyspace.Visit {
	rowTime := t
	if st.Age != nil {
		rowTime -= st.Age.Draw(r)
	}
	for f, g := range st.Fields {
		if g != nil {
			fields[f] = g.Next(r, rowTime)
		}
	}
	return st.Planner.Plan(visits[:0], r, fields, rowTime)
}

// sampleStream plans sampled requests of a stream with row times uniform over [from, to),
// each weighted by the stream's rate at its time, drawing from the random stream seq.
func sampleStream(s *scenario.Resolved, ss *scenario.StreamSpec, st *sim.Stream, from, to int64, seq uint64) sample {
	out := sample{shares: make([]float64, s.Shards)}
	r := rand.New(rand.NewPCG(s.Seed, seq))
	fields := make([]uint64, len(st.Fields))
	var visits []keyspace.Visit
	samples := explainMaxSamples
	totalW, subs, parts, rows := 0.0, 0.0, 0.0, 0.0
	// A row read costs rowWork partitions' worth of work.
	rowWork := 0.0
	if st.Cost > 0 {
		rowWork = float64(st.RowCost) / float64(st.Cost)
	}
	for j := 0; j < samples; j++ {
		t := from + int64(r.Float64()*float64(to-from))
		w := ss.Schedule.Rate(t)
		if ss.Burst != nil {
			w *= ss.Burst.Multiplier(t)
		}
		visits = planAt(st, r, t, fields, visits)
		if j == 0 {
			// Size the sample to the fan-out: about explainBudget partitions in all.
			n := 0
			for _, v := range visits {
				n += int(v.Partitions)
			}
			samples = min(max(explainBudget/max(n, 1), explainMinSamples), explainMaxSamples)
		}
		out.maxSubrequest = max(out.maxSubrequest, len(visits))
		totalW += w
		subs += w * float64(len(visits))
		for _, v := range visits {
			parts += w * float64(v.Partitions)
			rows += w * float64(v.Rows)
			if int(v.Shard) < len(out.shares) { // only the initial shards exist: no split happens here
				out.shares[v.Shard] += w * (float64(v.Partitions) + float64(v.Rows)*rowWork)
			}
		}
	}
	if totalW == 0 {
		return out
	}
	out.subrequests, out.partitions, out.rows = subs/totalW, parts/totalW, rows/totalW
	for sh := range out.shares {
		out.shares[sh] /= totalW
	}
	return out
}

// streamSeedOf gives explain's sampler a random stream per stream name, apart from the
// ones the simulation draws from.
func streamSeedOf(name string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 0x100000001b3
	}
	return keyspace.Hash64(h ^ 0xe4b1a1)
}
