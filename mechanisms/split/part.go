package split

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The splits' place among a model's settings (scenario.ModelPart): last before the recipe
// mechanisms', as the engine turned splits on before them.
const (
	partRank  = -10
	partBuild = 60
)

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "split", Rank: partRank, Build: partBuild, Make: build})
}

// build gives the model its splits, with the model's own splitter, which its planners
// route through; nil when shards do not split.
func build(b scenario.ModelBuild) sim.Setting {
	sp := b.Splitter()
	if sp == nil {
		return nil
	}
	return Split{Policy: *b.Scenario().Split, Splitter: sp}
}
