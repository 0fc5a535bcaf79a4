package compile

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/shardsim/shardsim/keyspace"
	migratem "github.com/shardsim/shardsim/mechanisms/migrate"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

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
func tenantMigration(s *scenario.Resolved, m *sim.Model, table keyspace.Scheme) *migratem.Migration {
	g, t := s.Migration, s.Migration.Tenant
	design := designOf(s)
	from := tenantShards(s, design, table, t)
	out := &migratem.Migration{At: g.At, Rate: g.Rate, MaxCPU: g.MaxCPU, Verify: g.Verify, Outbox: g.Outbox, Cutover: g.Cutover,
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
		share = generator(fs).(interface{ Prob(uint64) float64 }).Prob(t.Value)
	}
	out.Tenant = &migratem.Tenant{Field: t.Field, Value: t.Value, Share: share, From: from}
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
// keep state), and returns their shards in
// ascending order: the shards the backfill reads, each as often as it holds the rows.
func tenantShards(s *scenario.Resolved, design *keyspace.Design, table keyspace.Scheme, t *scenario.TenantSpec) []int {
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
		gens[f] = generator(fs)
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
// (rowCopyCosts).
func copyCosts(s *scenario.Resolved, out *migratem.Migration) {
	out.ReadCost, out.WriteCost, out.HistoryRows = rowCopyCosts(s, s.Migration.ReadCost, s.Migration.WriteCost)
}

// rowCopyCosts returns what copying the table's rows costs (a migration's backfill, a
// rebalance): a row's read cost, readCost when set, else by default one point read's (the
// first read stream's, or the first write stream's when none reads); its write cost,
// writeCost when set, else one write's (the first write stream's; with no write stream, a
// copy costs a read); and the history rows, the write streams' initial rate times
// table.history.
func rowCopyCosts(s *scenario.Resolved, readCost, writeCost sim.Time) (read, write sim.Time, historyRows int64) {
	var history float64
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Op == sim.Write {
			history += ss.Schedule.Rate(0) * s.History.Seconds()
			if write == 0 {
				write = ss.Cost
			}
		}
		if ss.Op == sim.Read && read == 0 {
			read = ss.Cost
		}
	}
	if readCost > 0 {
		read = readCost
	}
	if writeCost > 0 {
		write = writeCost
	}
	if read == 0 {
		read = write
	}
	if write == 0 {
		write = read
	}
	return read, write, int64(math.Round(history))
}
