package compile

import (
	"github.com/shardsim/shardsim/keyspace"
	migratem "github.com/shardsim/shardsim/mechanisms/migrate"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// migration builds the model's migration (docs/migrations.md) from the variant's migrate
// action and the variant it moves to, whose key design, shard scheme and placement make the
// new layout; m's streams are built. A copied row costs the action's read_cost on the old
// layout and its write_cost on the new one; by default, one point read's cost (the first read
// stream's, or the first write stream's when none reads) and one write's (the first write
// stream's). scheme is the target's shard scheme (its Routing's), which no run changes.
func migration(s *scenario.Resolved, m *sim.Model, scheme keyspace.Scheme) *migratem.Migration {
	g, t := s.Migration, s.Migration.Target
	design := designOf(t)
	out := &migratem.Migration{
		At:        g.At,
		ShardNode: Placement(t),
		Rate:      g.Rate,
		MaxCPU:    g.MaxCPU,
		Verify:    g.Verify,
		Outbox:    g.Outbox,
		ReadBoth:  g.ReadBoth,
		Cutover:   g.Cutover,
		Name:      g.To,
	}
	for i := range s.Streams {
		ts := &t.Streams[i]
		var p sim.Planner
		switch {
		case ts.Op == sim.Scan && ts.Query != nil:
			p = queryPlanner(t, design, scheme, *ts)
		case ts.Op == sim.Scan:
			p = keyspace.NewScatterPlanner(t.Shards)
		default:
			p = keyspace.NewPointPlanner(design, scheme, ts.Op == sim.Read)
		}
		if ts.Rows {
			rows := RowModel(t, ts)
			switch q := p.(type) {
			case *keyspace.QueryPlanner:
				q.SetRows(rows)
			case *keyspace.ScatterPlanner:
				q.SetRows(rows)
			}
		}
		out.Planners = append(out.Planners, p)
	}
	copyCosts(s, out)
	return out
}

// migrationOf is the migration among m's mechanisms (mechanisms/migrate), nil when none.
func migrationOf(m *sim.Model) *migratem.Migration {
	for _, x := range m.Mechanisms {
		if g, ok := x.(*migratem.Migration); ok {
			return g
		}
	}
	return nil
}
