package operator

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The actions' place among a model's settings (scenario.ModelPart): last, after the recipe
// mechanisms', so that they name why the run keeps to one engine after the others; their
// note first of the timed ones.
const (
	partRank  = 10
	partBuild = 20
)

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "operator", Rank: partRank, Build: partBuild, Make: build, Note: note})
}

// build builds the actions' setting (New); nil without actions.
func build(b scenario.ModelBuild) sim.Setting {
	if acts := New(b.Scenario().Actions); acts != nil {
		return acts
	}
	return nil
}

// note says that explain's figures ignore the actions; "" without any.
func note(s *scenario.Resolved, _ *sim.Model) string {
	if len(s.Actions) > 0 {
		return fmt.Sprintf("the figures ignore the %d operator action(s): nodes keep their initial cores", len(s.Actions))
	}
	return ""
}
