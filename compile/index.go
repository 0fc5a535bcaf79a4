package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/index"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// indexRouters is how each of the variant's indexes routes: a router over its layout
// (scenario.IndexSpec.Layout), its key design and scheme in place of the table's.
func indexRouters(s *scenario.Resolved) []*router {
	out := make([]*router, len(s.Indexes))
	for j, x := range s.Indexes {
		t := x.Layout
		rt := &router{design: designOf(t)}
		rt.scheme = buildScheme(t, rt.design)
		rt.needed = neededFields(t)
		out[j] = rt
	}
	return out
}

// indexes gives the model its indexes (docs/mitigations.md, "Global secondary indexes"),
// the first of its mechanisms: each one's shards on their nodes, the planner of the entry
// each write stream writes, its mode and its partitions' limit; and routes the streams
// that read over an index. m's streams are built. The setting is the model's own, as its
// planners are.
func indexes(s *scenario.Resolved, m *sim.Model, routers []*router) {
	if len(s.Indexes) == 0 {
		return
	}
	set := &index.Indexes{}
	for j, x := range s.Indexes {
		rt, t := routers[j], x.Layout
		idx := index.Index{Name: x.Name, ShardNode: IndexPlacement(s, j), Async: x.Async,
			WriteRate: x.WriteRate, ReadRate: x.ReadRate, Burst: x.Burst, Planners: make([]sim.Planner, len(s.Streams))}
		for i := range s.Streams {
			if s.Streams[i].Op == sim.Write {
				idx.Planners[i] = keyspace.NewPointPlanner(rt.design, rt.scheme, false)
			}
		}
		for i := range s.Streams {
			if s.Streams[i].Index != j+1 {
				continue
			}
			// The stream as the index routes it: its planner, the fields it draws and the
			// fields naming its key are the index's.
			st := rt.stream(t, i)
			m.Streams[i].Planner, m.Streams[i].Fields, m.Streams[i].KeyFields = st.Planner, st.Fields, st.KeyFields
			idx.Reads = append(idx.Reads, i)
		}
		set.List = append(set.List, idx)
	}
	// First: it routes the streams before the other mechanisms see them.
	m.Mechanisms = slices.Insert(m.Mechanisms, 0, sim.Setting(set))
}

// IndexPlacement returns the node of each of index j's shards: placed as the table's
// shards are (an explicit list places the table only: its index round-robin), and
// continuing where the table's round leaves off, so that index shard 0 goes to the node
// after the table's last shard's.
func IndexPlacement(s *scenario.Resolved, j int) []int {
	t := *s.Indexes[j].Layout
	if t.Placement == scenario.PlaceExplicit {
		t.Placement = scenario.PlaceRoundRobin
	}
	out := Placement(&t)
	first := s.Shards
	for _, x := range s.Indexes[:j] {
		first += x.Layout.Shards
	}
	for k := range out {
		out[k] = (out[k] + first) % len(s.Nodes)
	}
	return out
}

// indexNote says what explain's figures leave out of the variant's indexes: they are the
// table's shards' and nodes', without the index entries each write also writes and the
// reads routed over an index, which a run reports on the index's shards; "" without an
// index.
func indexNote(s *scenario.Resolved) string {
	if len(s.Indexes) == 0 {
		return ""
	}
	names := make([]string, len(s.Indexes))
	for j, x := range s.Indexes {
		names[j] = x.Name
	}
	var routed []string
	for i := range s.Streams {
		if s.Streams[i].Index > 0 {
			routed = append(routed, s.Streams[i].Name)
		}
	}
	note := fmt.Sprintf("the figures leave out the index(es) %s: each write also writes its entry in each, and their shards' load shows only in a run", strings.Join(names, ", "))
	if len(routed) > 0 {
		note += fmt.Sprintf(", as does that of %s, which read(s) through an index (its subrequests and partitions above are the index's)", strings.Join(routed, ", "))
	}
	return note
}
