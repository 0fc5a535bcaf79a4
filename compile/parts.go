package compile

import (
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// modelBuild is what a model part's setting is built from (scenario.ModelBuild): the
// variant's routing, the run's router and the model being built.
type modelBuild struct {
	r  *Routing
	rt *router
	m  *sim.Model
}

func (b *modelBuild) Scenario() *scenario.Resolved { return b.r.s }
func (b *modelBuild) Model() *sim.Model            { return b.m }
func (b *modelBuild) Splitter() *keyspace.Splitter { return b.rt.splitter }

func (b *modelBuild) Scheme(t *scenario.Resolved) keyspace.Scheme {
	if t == b.r.s {
		return b.r.table.scheme
	}
	return b.layout(t).scheme
}

func (b *modelBuild) Design(t *scenario.Resolved) *keyspace.Design { return designOf(t) }

func (b *modelBuild) Stream(t *scenario.Resolved, i int) sim.Stream {
	return b.layout(t).stream(t, i)
}

func (b *modelBuild) Planner(t *scenario.Resolved, i int) sim.Planner {
	return b.layout(t).planner(t, i)
}

func (b *modelBuild) Placement(t *scenario.Resolved) []int { return Placement(t) }

func (b *modelBuild) PlacementAfter(t *scenario.Resolved, first int) []int {
	return placementAfter(t, first, len(b.r.s.Nodes))
}

func (b *modelBuild) Generator(fs scenario.FieldSpec) workload.Generator { return generator(fs) }

// layout is the router of t, one of the layouts a model part routes by.
func (b *modelBuild) layout(t *scenario.Resolved) *router {
	rt := b.r.layouts[t]
	if rt == nil {
		panic("compile: a model part routes by a layout its Layouts did not give")
	}
	return rt
}

// placementAfter returns the node of each shard of layout t, a layout other than the
// table's whose shards are numbered from first, on a cluster of nodes nodes: placed as the
// table's shards are (an explicit list places the table only: t's round-robin), and
// continuing where the round leaves off at shard first-1.
func placementAfter(t *scenario.Resolved, first, nodes int) []int {
	c := *t
	if c.Placement == scenario.PlaceExplicit {
		c.Placement = scenario.PlaceRoundRobin
	}
	out := Placement(&c)
	for k := range out {
		out[k] = (out[k] + first) % nodes
	}
	return out
}
