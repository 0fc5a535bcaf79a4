package report

import (
	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
)

// describeScenario is what the report knows of sc, as cmd/shardsim gives it
// (compile.Describe), with exs, the variants' explanations, when given.
func describeScenario(sc *scenarios.Scenario, exs ...*compile.Explanation) *metrics.Scenario {
	vs := make([]*scenario.Variant, len(sc.Variants))
	for i, v := range sc.Variants {
		vs[i] = &v.Variant
	}
	return compile.Describe(&sc.Scenario, vs, exs)
}

// describeVariant is what the report knows of one variant.
func describeVariant(v *scenarios.Variant) *metrics.Variant {
	return &compile.Describe(&scenario.Scenario{}, []*scenario.Variant{&v.Variant}, nil).Variants[0]
}
