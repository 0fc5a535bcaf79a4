package report

import (
	"github.com/shardsim/shardsim/build"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/spec"
)

// describeScenario is what the report knows of sc, as cmd/shardsim gives it
// (build.Describe), with exs, the variants' explanations, when given.
func describeScenario(sc *scenarios.Scenario, exs ...*build.Explanation) *metrics.Scenario {
	vs := make([]*spec.Variant, len(sc.Variants))
	for i, v := range sc.Variants {
		vs[i] = &v.Variant
	}
	return build.Describe(&sc.Scenario, vs, exs)
}

// describeVariant is what the report knows of one variant.
func describeVariant(v *scenarios.Variant) *metrics.Variant {
	return &build.Describe(&spec.Scenario{}, []*spec.Variant{&v.Variant}, nil).Variants[0]
}
