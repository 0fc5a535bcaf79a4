package index

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The indexes' place among a model's settings (scenario.ModelPart): after the followers',
// a rebalance's and a migration's, before the splits' and the recipe mechanisms'; built
// first of the parts (they route streams that later parts see), their note first.
const (
	partRank  = -20
	partBuild = 10
)

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "index", Rank: partRank, Build: partBuild,
		Layouts: layouts, Shards: layouts, Make: build, Note: note, Load: load})
}

// load is what the indexes add to each request of stream i as explain and the work
// estimate count it (scenario.ModelPart.Load): a write writes its entry in each index; a
// read over an index is routed over the index's shards.
func load(s *scenario.Resolved, i int) scenario.AddedLoad {
	var l scenario.AddedLoad
	if s.Streams[i].Op == sim.Write {
		l.Entries = layouts(s)
	}
	l.Elsewhere = s.Streams[i].Index > 0
	return l
}

// layouts are the indexes' layouts (scenario.IndexSpec.Layout), which a write writes its
// entries by and a read over an index routes by: the shards the indexes add to the
// cluster, numbered after the table's in this order (build).
func layouts(s *scenario.Resolved) []*scenario.Resolved {
	var out []*scenario.Resolved
	for _, x := range s.Indexes {
		out = append(out, x.Layout)
	}
	return out
}

// build gives the model its indexes (docs/mitigations.md, "Global secondary indexes"):
// each one's shards on their nodes, the planner of the entry each write stream writes, its
// mode and its partitions' limit; and routes the streams that read over an index. The
// setting is the model's own, as its planners are; nil without an index.
func build(b scenario.ModelBuild) sim.Setting {
	s, m := b.Scenario(), b.Model()
	if len(s.Indexes) == 0 {
		return nil
	}
	set := &Indexes{}
	first := s.Shards // an index's shards are numbered after the table's and earlier indexes'
	for j, x := range s.Indexes {
		t := x.Layout
		idx := Index{Name: x.Name, ShardNode: b.PlacementAfter(t, first), Async: x.Async,
			WriteRate: x.WriteRate, ReadRate: x.ReadRate, Burst: x.Burst, Planners: make([]sim.Planner, len(s.Streams))}
		first += t.Shards
		design, scheme := b.Design(t), b.Scheme(t)
		for i := range s.Streams {
			if s.Streams[i].Op == sim.Write {
				idx.Planners[i] = keyspace.NewPointPlanner(design, scheme, false)
			}
		}
		for i := range s.Streams {
			if s.Streams[i].Index != j+1 {
				continue
			}
			// The stream as the index routes it: its planner, the fields it draws and the
			// fields naming its key are the index's.
			st := b.Stream(t, i)
			m.Streams[i].Planner, m.Streams[i].Fields, m.Streams[i].KeyFields = st.Planner, st.Fields, st.KeyFields
			idx.Reads = append(idx.Reads, i)
		}
		set.List = append(set.List, idx)
	}
	return set
}

// note says what explain's figures leave out of the variant's indexes: they are the
// table's shards' and nodes', without the index entries each write also writes and the
// reads routed over an index, which a run reports on the index's shards; "" without an
// index.
func note(s *scenario.Resolved, _ *sim.Model) string {
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
	n := fmt.Sprintf("the figures leave out the index(es) %s: each write also writes its entry in each, and their shards' load shows only in a run", strings.Join(names, ", "))
	if len(routed) > 0 {
		n += fmt.Sprintf(", as does that of %s, which read(s) through an index (its subrequests and partitions above are the index's)", strings.Join(routed, ", "))
	}
	return n
}
