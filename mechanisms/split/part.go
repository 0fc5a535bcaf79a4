package split

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The splits' place among a model's settings (scenario.ModelPart): last before the recipe
// mechanisms', as the engine turned splits on before them.
const (
	partRank  = -10
	partBuild = 60
)

// noteRank places the splits' note after the followers' among explain's notes on where
// the rows are served (scenario.RegisterLayoutNote).
const noteRank = 20

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "split", Rank: partRank, Build: partBuild, Make: build})
	scenario.RegisterLayoutNote(noteRank, note)
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

// note says that explain's figures are for the initial shards; "" when shards do not
// split.
func note(s *scenario.Resolved) string {
	if s.Split == nil {
		return ""
	}
	return fmt.Sprintf("the figures are for the initial %d shards: automatic splits (up to %d shards) happen only in a run", s.Shards, s.MaxShards)
}
