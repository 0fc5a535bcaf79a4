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

// addedLoads is what the model parts add to each request of each stream of s besides its
// subrequests on the table's shards' nodes (scenario.ModelPart.Load), every part's
// together, in the parts' order.
func addedLoads(s *scenario.Resolved) []scenario.AddedLoad {
	out := make([]scenario.AddedLoad, len(s.Streams))
	for _, p := range scenario.ModelParts() {
		if p.Load == nil {
			continue
		}
		for i := range out {
			l, o := p.Load(s, i), &out[i]
			o.Spread += l.Spread
			o.Copies = append(o.Copies, l.Copies...)
			o.Entries = append(o.Entries, l.Entries...)
			o.Elsewhere = o.Elsewhere || l.Elsewhere
			if l.Why != "" && o.Why != "" {
				o.Why += ", "
			}
			o.Why += l.Why
		}
	}
	return out
}

// ownLayouts are the layouts of the shards the model parts add to the cluster besides the
// table's (scenario.ModelPart.Shards), in the order the engine numbers them after the
// table's.
func ownLayouts(s *scenario.Resolved) []*scenario.Resolved {
	var out []*scenario.Resolved
	for _, p := range scenario.ModelParts() {
		if p.Shards != nil {
			out = append(out, p.Shards(s)...)
		}
	}
	return out
}

// ownPlacements is the node of each shard of every layout the model parts add to the
// cluster (ownLayouts), by layout: numbered after the table's shards and placed as the
// parts place them (scenario.ModelBuild's PlacementAfter), so that the first goes to the
// node after the table's last shard's.
func ownPlacements(s *scenario.Resolved) map[*scenario.Resolved][]int {
	out := map[*scenario.Resolved][]int{}
	first := s.Shards
	for _, t := range ownLayouts(s) {
		out[t] = placementAfter(t, first, len(s.Nodes))
		first += t.Shards
	}
	return out
}
