package replicas

import (
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

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "replicas", Rank: partRank, Build: partBuild, Make: build})
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
// stream: cluster.apply_cost, or by default the stream's own cost.
func applyCosts(s *scenario.Resolved) []sim.Time {
	costs := make([]sim.Time, len(s.Streams))
	for i := range costs {
		costs[i] = s.Streams[i].Cost
		if s.ApplyCost > 0 {
			costs[i] = s.ApplyCost
		}
	}
	return costs
}
