package compile

import (
	"sync"
	"sync/atomic"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Routing is what a variant's requests are routed by that no run changes: the table's key
// design, its shard scheme before any split (a range scheme's splits are cut from a sample
// of up to 500,000 history keys: the costly part) and the fields its planners read; the
// router of each other layout a model part routes by (scenario.ModelPart.Layouts: an
// index's, the variant a migration moves to). It is built once per
// variant (NewRouting, Routings) and shared by the work estimate, Explain and every model of
// the variant, including models run at once on several goroutines: every part is read-only
// once built (the schemes' Shard and Span keep no state, the planners keep theirs), and what
// a run changes, the splitter when shards split, each model makes its own
// (docs/architecture.md, "The way of the data").
//
// A Routing is of the scenario.Resolved it was built from, which must not change after.
type Routing struct {
	s     *scenario.Resolved
	table *router // splitter nil: each model wraps table.scheme in a fresh one (forRun)
	// The parts only a run needs, built on the first model (once): the router of each
	// layout the model parts route by (scenario.ModelPart.Layouts).
	once    sync.Once
	layouts map[*scenario.Resolved]*router
	shared  map[*scenario.Resolved]*Routing // the routings Routings was given, by variant
}

// NewRouting builds the routing of s.
func NewRouting(s *scenario.Resolved) *Routing {
	return &Routing{s: s, table: newRouter(s)}
}

// keptRingBytes bounds the memory of the rings the routings Routings keeps hold together:
// a routing lives from the load to the end of the command, where a run's ring lives for
// the run alone (RunMemory counts those of the variants that run at once).
const keptRingBytes = 64 << 20

// Routings builds the routing of each of specs, once each, to be kept for every estimate
// and model of its variant; a variant's migration to another of them takes that one's
// scheme rather than building its own. Where the rings of the routings kept so far would
// pass keptRingBytes (a hash ring of millions of points), it keeps none: out[i] is nil, and
// each estimate and model of the variant builds its own routing, as RunMemory counts.
func Routings(specs []*scenario.Resolved) []*Routing {
	out := make([]*Routing, len(specs))
	of := make(map[*scenario.Resolved]*Routing, len(specs))
	kept := 0.0
	for i, s := range specs {
		if of[s] == nil {
			b := ringBytes(s)
			if kept+b > keptRingBytes {
				continue
			}
			kept += b
			of[s] = NewRouting(s)
		}
		out[i] = of[s]
	}
	for _, r := range out {
		if r != nil {
			r.shared = of
		}
	}
	return out
}

// Of reports whether r is the routing of s.
func (r *Routing) Of(s *scenario.Resolved) bool { return r != nil && r.s == s }

// Model builds a fresh sim.Model of the routing's scenario (Model).
func (r *Routing) Model() *sim.Model {
	r.once.Do(r.runParts)
	return buildModel(r)
}

// runParts builds what only a run routes by: the router of each layout a model part
// routes by, in the parts' order, each over its own key design and shard scheme; a layout
// that is another variant Routings was given takes that one's scheme.
func (r *Routing) runParts() {
	for _, p := range scenario.ModelParts() {
		if p.Layouts == nil {
			continue
		}
		for _, t := range p.Layouts(r.s) {
			if r.layouts[t] != nil {
				continue
			}
			rt := &router{design: designOf(t), needed: neededFields(t)}
			if o := r.shared[t]; o != nil {
				rt.scheme = o.table.scheme
			} else {
				rt.scheme = buildScheme(t, rt.design)
			}
			if r.layouts == nil {
				r.layouts = map[*scenario.Resolved]*router{}
			}
			r.layouts[t] = rt
		}
	}
}

// forRun is the router a model (or an estimate) routes by: rt itself, or when shards split,
// rt over a fresh splitter of its scheme, which the run's splits change.
func (rt *router) forRun(s *scenario.Resolved) *router {
	if s.Split == nil {
		return rt
	}
	run := *rt
	// Every planner routes through the one splitter, so a split moves every stream's keys.
	run.splitter = keyspace.NewSplitter(rt.scheme, s.MaxShards)
	run.scheme = run.splitter
	return &run
}

// schemesBuilt counts the schemes buildScheme built (SchemesBuilt).
var schemesBuilt atomic.Int64

// SchemesBuilt is how many shard schemes of a variant's table, index or migration target
// this process has built. A variant's routing builds each once (Routing); tests read it to
// check that no estimate or run builds one again.
func SchemesBuilt() int64 { return schemesBuilt.Load() }
