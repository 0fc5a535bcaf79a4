package build

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
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
	// Notes say what the figures assume about the variant's mitigations (replicas, the
	// cache, splits, limits), one sentence each; empty without them.
	Notes []string
}

// StreamPlan is the fan-out of one request of a stream, and its rates.
type StreamPlan struct {
	Name          string
	Op            sim.Op
	MeanRate      float64 // requests per second, averaged over the run
	PeakRate      float64 // the schedule's highest rate within the run (it is linear between points)
	Subrequests   float64 // mean shards visited per request
	MaxSubrequest int
	Partitions    float64 // mean partitions visited per request
	// Shares[s] is the mean number of partitions a request reads on shard s.
	Shares []float64
}

// OfferedLoad is the offered load of a shard or node as a fraction of its node's cores: Mean at
// every stream's mean rate, Peak at every stream's peak rate (an upper bound when streams
// peak at different times). Above 1 the node cannot keep up. With replicas, a shard's load
// is its leader's, and a node's load includes the followers it hosts (the writes they
// apply and, with read_from = "any", their share of the reads).
type OfferedLoad struct {
	ID    int
	Node  int
	Cores int
	Mean  float64
	Peak  float64
}

// explainBudget bounds the partitions sampled per stream; between explainMinSamples and
// explainMaxSamples requests are sampled.
const (
	explainBudget     = 2_000_000
	explainMinSamples = 2_000
	explainMaxSamples = 100_000
)

// Explain samples each stream's requests through the variant's own planners (row times
// uniform over the run, weighted by the rate at that time) and applies the utilization law.
// It is deterministic for the scenario's seed.
func Explain(name string, s *spec.Resolved) *Explanation {
	m := Model(s)
	ex := &Explanation{Variant: name, Key: s.KeyDescription(), NodeShard: make([][]int, len(s.Nodes))}
	shardNode := m.ShardNode
	for sh, n := range shardNode {
		ex.NodeShard[n] = append(ex.NodeShard[n], sh)
	}
	shardMean := make([]float64, s.Shards) // core-seconds per second, on the leader
	shardPeak := make([]float64, s.Shards)
	nodeWorkMean := make([]float64, len(s.Nodes)) // core-seconds per second, followers included
	nodeWorkPeak := make([]float64, len(s.Nodes))
	copiesOf := s.Replicas + 1 // where a shard's reads go, with read_from = "any"
	for i := range m.Streams {
		st := &m.Streams[i]
		ss := &s.Streams[i]
		plan := StreamPlan{Name: st.Name, Op: st.Op, Shares: make([]float64, s.Shards)}
		plan.MeanRate = ss.Integral(0, int64(s.Duration)) / s.Duration.Seconds()
		plan.PeakRate = max(ss.Schedule.Rate(0), ss.Schedule.Rate(int64(s.Duration)-1))
		for _, p := range ss.Schedule {
			if p.At < int64(s.Duration) {
				plan.PeakRate = math.Max(plan.PeakRate, p.Rate)
			}
		}
		if ss.Burst != nil {
			plan.PeakRate *= ss.Burst.Factor // inside a burst
		}
		sampleStream(s, ss, st, &plan)
		for sh, parts := range plan.Shares {
			work := parts * st.Cost.Seconds()
			leader := shardNode[sh]
			spread := st.Op != sim.Write && s.ReadAny && s.Replicas > 0
			if spread {
				work /= float64(copiesOf) // the leader's share; each follower takes as much
			}
			shardMean[sh] += plan.MeanRate * work
			shardPeak[sh] += plan.PeakRate * work
			nodeWorkMean[leader] += plan.MeanRate * work
			nodeWorkPeak[leader] += plan.PeakRate * work
			for k := 1; k <= s.Replicas; k++ {
				follower := (leader + k) % len(s.Nodes)
				fw := work
				if st.Op == sim.Write {
					fw = parts * st.ApplyCost.Seconds()
				} else if !spread {
					continue
				}
				nodeWorkMean[follower] += plan.MeanRate * fw
				nodeWorkPeak[follower] += plan.PeakRate * fw
			}
		}
		ex.Streams = append(ex.Streams, plan)
	}
	for sh, n := range shardNode {
		cores := float64(s.Nodes[n].Cores)
		ex.Shards = append(ex.Shards, OfferedLoad{ID: sh, Node: n, Cores: s.Nodes[n].Cores, Mean: shardMean[sh] / cores, Peak: shardPeak[sh] / cores})
	}
	for n := range s.Nodes {
		cores := float64(s.Nodes[n].Cores)
		ex.Nodes = append(ex.Nodes, OfferedLoad{ID: n, Node: n, Cores: s.Nodes[n].Cores, Mean: nodeWorkMean[n] / cores, Peak: nodeWorkPeak[n] / cores})
	}
	ex.Notes = explainNotes(s)
	return ex
}

// explainNotes says how the variant's mitigations enter the figures, or that they do not.
func explainNotes(s *spec.Resolved) []string {
	var notes []string
	if s.Replicas > 0 {
		n := fmt.Sprintf("%d follower(s) per shard on the next node(s): node loads include the writes they apply", s.Replicas)
		if s.ReadAny {
			n += " and, with read_from = \"any\", reads spread evenly over the leader and its followers (a shard's load is its leader's share)"
		}
		notes = append(notes, n)
	}
	if s.Cache != nil {
		notes = append(notes, "the figures ignore the cache: every read is counted as reaching the database (its hit ratio is known only by running)")
	}
	if s.Split != nil {
		notes = append(notes, fmt.Sprintf("the figures are for the initial %d shards: automatic splits (up to %d shards) happen only in a run", s.Shards, s.MaxShards))
	}
	if s.Limits != nil {
		notes = append(notes, "the figures ignore the per-partition limits: throttled requests are counted as served")
	}
	if s.Copies != nil {
		notes = append(notes, fmt.Sprintf("hot-key copies: a write of one of the %d copied %s values is counted on each of its %d copies, a read on one", len(s.Copies.Keys), s.FieldNames[s.Copies.Field], s.Copies.Count))
	}
	if len(s.Actions) > 0 {
		notes = append(notes, fmt.Sprintf("the figures ignore the %d operator action(s): nodes keep their initial cores", len(s.Actions)))
	}
	return notes
}

// sampleStream fills plan's fan-out figures and per-shard partition shares by planning
// sampled requests, each weighted by the stream's rate at its row time.
func sampleStream(s *spec.Resolved, ss *spec.StreamSpec, st *sim.Stream, plan *StreamPlan) {
	r := rand.New(rand.NewPCG(s.Seed, streamSeedOf(st.Name)))
	fields := make([]uint64, len(st.Fields))
	var visits []keyspace.Visit
	samples := explainMaxSamples
	totalW, subs, parts := 0.0, 0.0, 0.0
	for j := 0; j < samples; j++ {
		t := int64(r.Float64() * float64(s.Duration))
		w := ss.Schedule.Rate(t)
		if ss.Burst != nil {
			w *= ss.Burst.Multiplier(t)
		}
		rowTime := t
		if st.Age != nil {
			rowTime -= st.Age.Draw(r)
		}
		for f, g := range st.Fields {
			if g != nil {
				fields[f] = g.Next(r, rowTime)
			}
		}
		visits = st.Planner.Plan(visits[:0], r, fields, rowTime)
		if j == 0 {
			// Size the sample to the fan-out: about explainBudget partitions in all.
			n := 0
			for _, v := range visits {
				n += int(v.Partitions)
			}
			samples = min(max(explainBudget/max(n, 1), explainMinSamples), explainMaxSamples)
		}
		plan.MaxSubrequest = max(plan.MaxSubrequest, len(visits))
		totalW += w
		subs += w * float64(len(visits))
		for _, v := range visits {
			parts += w * float64(v.Partitions)
			if int(v.Shard) < len(plan.Shares) { // only the initial shards exist: no split happens here
				plan.Shares[v.Shard] += w * float64(v.Partitions)
			}
		}
	}
	if totalW == 0 {
		return
	}
	plan.Subrequests, plan.Partitions = subs/totalW, parts/totalW
	for sh := range plan.Shares {
		plan.Shares[sh] /= totalW
	}
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
