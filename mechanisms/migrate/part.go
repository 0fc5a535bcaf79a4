package migrate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// The migration's place among a model's settings (scenario.ModelPart): after the
// followers' and a rebalance's, before the indexes'; built after the indexes and the
// operator's actions and before a rebalance (a tenant's new shards are placed on the
// cluster's nodes, before any join), its note among the timed ones after the actions'.
const (
	partRank  = -30
	partBuild = 30
)

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "migrate", Rank: partRank, Build: partBuild,
		Layouts: layouts, Needs: needs, Make: build, Note: note})
}

// layouts is the variant a migration moves to, whose key design and scheme make the new
// layout.
func layouts(s *scenario.Resolved) []*scenario.Resolved {
	if g := s.Migration; g != nil && g.Target != nil {
		return []*scenario.Resolved{g.Target}
	}
	return nil
}

// needs marks a tenant's field: every request says whose it is.
func needs(s *scenario.Resolved, need []bool) {
	if g := s.Migration; g != nil && g.Tenant != nil {
		need[g.Tenant.Field] = true
	}
}

// build builds the model's migration (docs/migrations.md), to another variant or of one
// tenant; nil without one. A migration is put first among Model.Mechanisms after the
// followers and a rebalance, so that it names why the run keeps to one engine and plans
// over the streams' own planners.
func build(b scenario.ModelBuild) sim.Setting {
	switch g := b.Scenario().Migration; {
	case g != nil && g.Target != nil:
		return migration(b)
	case g != nil && g.Tenant != nil:
		return tenantMigration(b)
	}
	return nil
}

// migration builds the migration from the variant's migrate action and the variant it
// moves to, whose key design, shard scheme and placement make the new layout. A copied row
// costs the action's read_cost on the old layout and its write_cost on the new one; by
// default, one point read's cost (the first read stream's, or the first write stream's
// when none reads) and one write's (the first write stream's). The target's scheme is its
// routing's, which no run changes.
func migration(b scenario.ModelBuild) *Migration {
	s := b.Scenario()
	g, t := s.Migration, s.Migration.Target
	out := &Migration{
		At:        g.At,
		ShardNode: b.Placement(t),
		Rate:      g.Rate,
		MaxCPU:    g.MaxCPU,
		Verify:    g.Verify,
		Outbox:    g.Outbox,
		ReadBoth:  g.ReadBoth,
		Cutover:   g.Cutover,
		Name:      g.To,
	}
	for i := range s.Streams {
		out.Planners = append(out.Planners, b.Planner(t, i))
	}
	copyCosts(s, out)
	return out
}

// tenantSamples is how many of the tenant's rows build places on the old layout to find
// the shards that hold them (Tenant.From).
const tenantSamples = 256

// tenantMigration builds a migration that moves one tenant alone to shards of its own
// (issue 21), as Citus's isolate_tenant_to_new_shard does: the tenant's rows are hashed
// over its new shards by the variant's key design; every other row stays. The tenant's
// share of the rows is its field's probability of the tenant's value (a categorical
// weight, 1/n for a uniform field, the Zipf law's mass); the shards that hold its rows on
// the old layout are found by placing tenantSamples of its rows, drawn from the first
// write stream's field generators at times spread over the history. The costs of a copied
// row and the history are a migration's (see migration).
func tenantMigration(b scenario.ModelBuild) *Migration {
	s, m := b.Scenario(), b.Model()
	g, t := s.Migration, s.Migration.Tenant
	design := b.Design(s)
	from := tenantShards(b, design, b.Scheme(s), t)
	out := &Migration{At: g.At, Rate: g.Rate, MaxCPU: g.MaxCPU, Verify: g.Verify, Outbox: g.Outbox, Cutover: g.Cutover,
		Name: "tenant " + t.Text + "'s shards", ShardNode: tenantNodes(t, m.ShardNode, len(m.Nodes), s.Replicas, from)}
	scheme := keyspace.NewModulo(t.Shards)
	for i := range s.Streams {
		if s.Streams[i].Op == sim.Scan {
			out.Planners = append(out.Planners, keyspace.NewScatterPlanner(t.Shards))
		} else {
			out.Planners = append(out.Planners, keyspace.NewPointPlanner(design, scheme, s.Streams[i].Op == sim.Read))
		}
	}
	copyCosts(s, out)
	fs := s.Fields[t.Field]
	share := 0.0
	switch fs.Gen {
	case "categorical":
		var sum float64
		for _, w := range fs.Weights {
			sum += w
		}
		if sum > 0 && int(t.Value) < len(fs.Weights) {
			share = fs.Weights[t.Value] / sum
		}
	case "uniform":
		share = 1 / float64(fs.N)
	case "zipf":
		share = b.Generator(fs).(interface{ Prob(uint64) float64 }).Prob(t.Value)
	}
	out.Tenant = &Tenant{Field: t.Field, Value: t.Value, Share: share, From: from}
	// A scan that does not name a tenant reads every tenant: the tenant's shards too.
	name := s.FieldNames[t.Field]
	for i := range s.Streams {
		w, named := s.Streams[i].Where[name]
		out.Tenant.All = append(out.Tenant.All, s.Streams[i].Op == sim.Scan && !(named && w.Eq))
	}
	return out
}

// tenantNodes returns the nodes of the tenant's shards: the ones given, or by default,
// one new shard after another, the node holding the fewest shards (its new ones counted as
// they are placed; the lowest id among equals) among the nodes tenantFree allows, so that
// the move takes the tenant off the nodes it loads; all nodes when it allows none.
func tenantNodes(t *scenario.TenantSpec, shardNode []int, nodes, replicas int, from []int) []int {
	if t.Nodes != nil {
		return slices.Clone(t.Nodes)
	}
	count := make([]int, nodes)
	for _, n := range shardNode {
		count[n]++
	}
	free, ok := tenantFree(shardNode, nodes, replicas, from)
	out := make([]int, t.Shards)
	for i := range out {
		best := -1
		for n := range count {
			if (free[n] || !ok) && (best < 0 || count[n] < count[best]) {
				best = n
			}
		}
		out[i] = best
		count[best]++
	}
	return out
}

// tenantFree marks the nodes where a new shard of the tenant would share no node with
// the tenant's old shards from (shard ids of shardNode): neither the node nor, with
// replicas followers per shard (follower k of a shard on node n is on node n + k), its
// followers' nodes holds a leader or a follower of one of them. ok is false when no node
// is free: the tenant's rows are on every node, or nearly.
func tenantFree(shardNode []int, nodes, replicas int, from []int) (free []bool, ok bool) {
	held := make([]bool, nodes) // a copy of one of the tenant's old shards is on the node
	for _, sh := range from {
		for k := 0; k <= replicas; k++ {
			held[(shardNode[sh]+k)%nodes] = true
		}
	}
	free = make([]bool, nodes)
	for n := range free {
		free[n] = true
		for k := 0; k <= replicas; k++ {
			free[n] = free[n] && !held[(n+k)%nodes]
		}
		ok = ok || free[n]
	}
	return free, ok
}

// tenantShards places tenantSamples rows of the tenant on the old layout (table, the
// table's scheme before any split), with fresh generators and planner (the model's own
// keep state), and returns their shards in ascending order: the shards the backfill reads,
// each as often as it holds the rows.
func tenantShards(b scenario.ModelBuild, design *keyspace.Design, table keyspace.Scheme, t *scenario.TenantSpec) []int {
	s := b.Scenario()
	fieldsOf := s.Fields
	for i := range s.Streams {
		if s.Streams[i].Op == sim.Write {
			fieldsOf = s.Streams[i].Fields
			break
		}
	}
	r := rand.New(rand.NewPCG(s.Seed, 0x7e4a47))
	p := keyspace.NewPointPlanner(design, table, false)
	fields := make([]uint64, len(fieldsOf))
	gens := make([]workload.Generator, len(fieldsOf))
	for f, fs := range fieldsOf {
		gens[f] = b.Generator(fs)
	}
	hist := max(int64(s.History), 1)
	var out []int
	for range tenantSamples {
		at := -r.Int64N(hist)
		for f, g := range gens {
			if g != nil {
				fields[f] = g.Next(r, at)
			}
		}
		fields[t.Field] = t.Value
		for _, v := range p.Plan(nil, r, fields, at) {
			out = append(out, int(v.Shard))
		}
	}
	slices.Sort(out)
	return out
}

// copyCosts sets a migration's copied row's read and write costs and its history rows
// (scenario.RowCopyCosts).
func copyCosts(s *scenario.Resolved, out *Migration) {
	out.ReadCost, out.WriteCost, out.HistoryRows = scenario.RowCopyCosts(s, s.Migration.ReadCost, s.Migration.WriteCost)
}

// note says that explain's figures are for the layout before the migration, whose dual
// writes, backfill and cutover happen only in a run; "" without a migration.
func note(s *scenario.Resolved, m *sim.Model) string {
	g := s.Migration
	if g == nil {
		return ""
	}
	to := fmt.Sprintf("the migration to %q", g.To)
	if g.Tenant != nil {
		to = "the move of " + g.Tenant.Text + " to shards of its own " + tenantPlacement(g.Tenant, m, s.Replicas)
	}
	return "the figures are for the layout before " + to + ": its dual writes, backfill and cutover happen only in a run"
}

// tenantPlacement says where a tenant's new shards go, and why: "(its shard on node 3: by
// default ...)", with replicas followers per shard; m is the variant's model.
func tenantPlacement(t *scenario.TenantSpec, m *sim.Model, replicas int) string {
	g := migrationOf(m)
	nodes := g.ShardNode
	list := make([]string, len(nodes))
	for i, n := range nodes {
		list[i] = strconv.Itoa(n)
	}
	where := "its shard on node " + list[0]
	if len(nodes) > 1 {
		where = "its shards on nodes " + strings.Join(list, ", ")
	}
	if t.Nodes != nil {
		return "(" + where + ", as given)"
	}
	_, ok := tenantFree(m.ShardNode, len(m.Nodes), replicas, g.Tenant.From)
	switch {
	case !ok && replicas > 0:
		return "(" + where + ": every node holds a copy of some of its rows or has a follower on one that does, so the nodes holding the fewest shards)"
	case !ok:
		return "(" + where + ": every node holds some of its rows, so the nodes holding the fewest shards)"
	case replicas > 0:
		return "(" + where + ": by default the nodes that hold no copy of its rows and have no follower on one that does, those holding the fewest shards first)"
	}
	return "(" + where + ": by default the nodes that hold none of its rows, those holding the fewest shards first)"
}

// migrationOf is the migration among m's mechanisms, nil when none.
func migrationOf(m *sim.Model) *Migration {
	for _, x := range m.Mechanisms {
		if g, ok := x.(*Migration); ok {
			return g
		}
	}
	return nil
}
