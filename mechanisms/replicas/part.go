package replicas

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The followers' place among a model's settings (scenario.ModelPart): first, so that it
// names why the run keeps to one engine before the others and the followers' count is
// set before any setting reads it; built after the parts that change the model.
const (
	partRank  = -50
	partBuild = 50
)

// noteRank places the followers' note first among explain's notes on where the rows are
// served (scenario.RegisterLayoutNote).
const noteRank = 10

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "replicas", Rank: partRank, Build: partBuild, Make: build, Load: load})
	scenario.RegisterLayoutNote(noteRank, note)
}

// build builds the followers' setting; nil without followers or read_from = "any".
func build(b scenario.ModelBuild) sim.Setting {
	s := b.Scenario()
	if s.Replicas == 0 && !s.ReadAny {
		return nil
	}
	return Replicas{Followers: s.Replicas, ReadAny: s.ReadAny, ApplyCost: applyCosts(s)}
}

// applyCosts is the CPU time a follower spends applying one partition of a write of each
// stream (applyCostOf).
func applyCosts(s *scenario.Resolved) []sim.Time {
	costs := make([]sim.Time, len(s.Streams))
	for i := range costs {
		costs[i] = applyCostOf(s, i)
	}
	return costs
}

// applyCostOf is the CPU time a follower spends applying one partition of a write of
// stream i: cluster.apply_cost, or by default the stream's own cost.
func applyCostOf(s *scenario.Resolved, i int) sim.Time {
	if s.ApplyCost > 0 {
		return s.ApplyCost
	}
	return s.Streams[i].Cost
}

// load is what the followers add to each request of stream i as explain and the work
// estimate count it (scenario.ModelPart.Load): each follower, on the next nodes after its
// leader's, applies a write; with read_from = "any" the leader and its followers share
// the reads and scans evenly.
func load(s *scenario.Resolved, i int) scenario.AddedLoad {
	if s.Replicas == 0 {
		return scenario.AddedLoad{}
	}
	if s.Streams[i].Op != sim.Write {
		if s.ReadAny {
			return scenario.AddedLoad{Spread: s.Replicas}
		}
		return scenario.AddedLoad{}
	}
	l := scenario.AddedLoad{Why: fmt.Sprintf("every write is applied by %d followers (cluster.replicas)", s.Replicas)}
	for k := 1; k <= s.Replicas; k++ {
		l.Copies = append(l.Copies, scenario.Copy{Next: k, Cost: applyCostOf(s, i)})
	}
	return l
}

// note says how the followers enter explain's figures; "" without followers.
func note(s *scenario.Resolved) string {
	if s.Replicas == 0 {
		return ""
	}
	n := fmt.Sprintf("%d follower(s) per shard on the next node(s): node loads include the writes they apply", s.Replicas)
	if s.ReadAny {
		n += " and, with read_from = \"any\", reads spread evenly over the leader and its followers (a shard's load is its leader's share)"
	}
	return n
}
