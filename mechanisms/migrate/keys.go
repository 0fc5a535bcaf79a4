package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// The migration's keys, an [[actions]] entry's migrate table (docs/scenario.md,
// "[[actions]]"; docs/migrations.md), are declared and checked here. migrate is a setting
// an action changes (scenario.RegisterActionSetting), resolved in the actions' order into
// Resolved.Migration (scenario.MigrationSpec), which the rest of the scenario reads (the
// loader links the variant it moves to, Link; a rebalance and an index refuse it) and
// compile builds the setting from. A migrate action after the run's end is checked and
// dropped (drop).

// Table is an action's migrate table as written: { to = "VARIANT", backfill_rate = N,
// cutover = "..." }.
type Table struct {
	To           string   `toml:"to"`
	BackfillRate *float64 `toml:"backfill_rate"`
	// Cutover is "backfill" (default: when the backfill is done), "never" (a dry run), or
	// a clock time or duration since the start, as an action's at.
	Cutover string `toml:"cutover"`
	// ReadCost and WriteCost are the CPU time of copying one row: reading it from the old
	// layout and writing it to the new one (defaults: a point read's and a write's cost).
	ReadCost  scenario.Duration `toml:"read_cost"`
	WriteCost scenario.Duration `toml:"write_cost"`
	// MaxCPU caps the backfill's CPU on a node at this fraction of its cores (0 < x <= 1;
	// absent: no cap).
	MaxCPU *float64 `toml:"max_cpu"`
	// Verify keeps writes going to the old layout too for this long after the cutover.
	Verify scenario.Duration `toml:"verify"`
	// Outbox makes the dual writes asynchronous, with this lag.
	Outbox scenario.Duration `toml:"outbox"`
	// Reads is "old" (default: reads stay on the old layout until the cutover, writes go
	// to both) or "both" (writes go to the new layout only, reads visit both until the
	// cutover: a salt's growth without a copy).
	Reads string `toml:"reads"`
	// Tenant moves one tenant alone to shards of its own, instead of To:
	// tenant = { field = "tenant_id", value = "acme" }, with Shards shards (default 1) on
	// Nodes (default: nodes holding none of the tenant's old shards, the fewest shards first).
	Tenant *TenantSel `toml:"tenant"`
	Shards *int       `toml:"shards"`
	Nodes  []int      `toml:"nodes"`
}

// TenantSel names a tenant: the rows whose Field is Value.
type TenantSel struct {
	Field string           `toml:"field"`
	Value *scenario.Scalar `toml:"value"`
}

var tableKey = scenario.ActionKey[*Table]("migrate", "none",
	"a table: the table moves online to another variant's layout (`to`), or one tenant to shards of its own (`tenant`), from `at`: its keys are described in [`[[actions]]`](#actions) above (docs/migrations.md)")

// maxTenantShards bounds migrate.shards.
const maxTenantShards = 1024

// rank puts migrate after the operator's and the cache's settings among those actions
// change, in the problems and in the hint of an action that says nothing to do.
const rank = 30

func init() {
	scenario.RegisterActionSetting(scenario.ActionSetting{
		Keys: []string{tableKey.Name()}, Hints: []string{`migrate = { to = "VARIANT", ... }`}, Rank: rank,
		Resolve: resolveAction, Text: text, Drop: drop,
	})
	scenario.RegisterLoadChange(migrates)
}

// migrates reports whether s migrates its table, which moves its rows and their load
// between layouts during the run (scenario.Resolved.LoadsChange).
func migrates(s *scenario.Resolved) bool { return s.Migration != nil }

// drop takes out of s the migration an action after the run's end would start: it is
// checked, and no part of the run.
func drop(s *scenario.Resolved) { s.Migration = nil }

// resolveAction checks action a's migrate table into s.Migration.
func resolveAction(c *scenario.Checker, s *scenario.Resolved, key string, a *scenario.Action, act *scenario.ActionSpec) {
	m, _ := tableKey.In(a.Ext)
	resolve(c, s, key+".migrate", act.At, m)
}

// resolve checks an action's migrate table. What it can check alone is checked here; the
// variant it names is checked by Link, once the loader has resolved every variant.
func resolve(c *scenario.Checker, s *scenario.Resolved, key string, at sim.Time, m *Table) {
	if s.Migration != nil {
		c.Add(key, "a run holds one migration, and %s already starts one", s.Migration.Key)
		return
	}
	ms := &scenario.MigrationSpec{Key: key, At: at, To: m.To, Cutover: sim.CutoverBackfill}
	what(c, s, key, m, ms)
	switch m.Reads {
	case "", "old":
	case "both":
		ms.ReadBoth = true
	default:
		c.Add(key+".reads", "must be \"old\" (reads stay on the old layout until the cutover) or \"both\" (writes go to the new layout, reads visit both) (got %q)", m.Reads)
	}
	backfill(c, key, m, ms)
	cutover(c, s, key, at, m, ms)
	costs(c, key, m, ms)
	conflicts(c, s, key, ms)
	s.Migration = ms
}

// what reads what moves: the whole table to another variant's layout (to), or one tenant
// to shards of its own.
func what(c *scenario.Checker, s *scenario.Resolved, key string, m *Table, ms *scenario.MigrationSpec) {
	switch {
	case m.Tenant != nil && m.To != "":
		c.Add(key+".tenant", "moves one tenant to shards of its own, and to moves the whole table: give one of them")
	case m.Tenant != nil:
		ms.Tenant = resolveTenant(c, s, key, m)
	case m.Shards != nil || m.Nodes != nil:
		k := "shards"
		if m.Shards == nil {
			k = "nodes"
		}
		c.Add(key+"."+k, "applies only with tenant = { field, value }: the tenant's own shards")
	case strings.TrimSpace(m.To) == "":
		c.Add(key+".to", "required: the name of the variant whose key design and shards the table moves to (or tenant = { field, value } to move one tenant alone)")
	}
}

// backfill reads the backfill's rate, which a migration that reads both layouts may leave
// out when it cuts over at a set time or never.
func backfill(c *scenario.Checker, key string, m *Table, ms *scenario.MigrationSpec) {
	switch r := m.BackfillRate; {
	case r == nil && ms.ReadBoth && m.Cutover != "" && m.Cutover != "backfill":
		// No backfill: the old rows stay where they are, and reads visit both layouts.
	case r == nil && ms.ReadBoth:
		c.Add(key+".cutover", "required without a backfill_rate: a clock time, a duration since the start, or \"never\" (there is no backfill to wait for)")
	default:
		ms.Rate = c.RowRate(key+".backfill_rate", "the backfill copies", r)
	}
}

// cutover reads when reads move to the new layout: when the backfill ends, never, or at a
// time after the migration starts.
func cutover(c *scenario.Checker, s *scenario.Resolved, key string, at sim.Time, m *Table, ms *scenario.MigrationSpec) {
	switch m.Cutover {
	case "", "backfill":
		return
	case "never":
		ms.Cutover = sim.CutoverNever
		return
	}
	t, err := units.ParseInstant(m.Cutover, s.Start)
	switch {
	case err != nil:
		c.Add(key+".cutover", "must be \"backfill\", \"never\", or a clock time such as \"10:30\" or a duration since the start such as \"2h\": %v", err)
	case t <= at:
		c.Add(key+".cutover", "must come after the migration starts at %s (got %q)", units.Clock(0, s.Start+at, units.TimeOfDay), m.Cutover)
	default:
		ms.Cutover = t
	}
}

// costs reads the copy's costs and CPU cap, the outbox's lag and the verification period.
func costs(c *scenario.Checker, key string, m *Table, ms *scenario.MigrationSpec) {
	if m.ReadCost.Set() {
		ms.ReadCost = c.Duration(key+".read_cost", m.ReadCost, "", 1)
	}
	if m.WriteCost.Set() {
		ms.WriteCost = c.Duration(key+".write_cost", m.WriteCost, "", 1)
	}
	ms.MaxCPU = c.MaxCPU(key+".max_cpu", m.MaxCPU)
	if m.Outbox.Set() {
		ms.Outbox = c.Duration(key+".outbox", m.Outbox, "", 0)
	}
	if m.Verify.Set() {
		ms.Verify = c.Duration(key+".verify", m.Verify, "", 0)
		if ms.Cutover == sim.CutoverNever && ms.Verify > 0 {
			c.Add(key+".verify", "applies after a cutover, and cutover = \"never\" has none")
		}
	}
}

// conflicts refuses what the engine does not combine with a migration yet.
func conflicts(c *scenario.Checker, s *scenario.Resolved, key string, ms *scenario.MigrationSpec) {
	if ms.Tenant != nil && ms.ReadBoth {
		c.Add(key+".reads", "must be \"old\" when one tenant moves: its rows are copied, not left behind")
	}
	if ms.Tenant != nil && ms.Verify > 0 {
		c.Add(key+".verify", "cannot be combined with tenant yet (the verification period's CPU is counted for whole tables)")
	}
	switch {
	case s.Split != nil:
		c.Add(key, "cannot be combined with keyspace.split (automatic splits) yet")
	case s.Limits != nil:
		c.Add(key, "cannot be combined with partition limits yet")
	}
	for i, st := range s.Streams {
		if st.Lock.Mean > 0 {
			c.Add(key, "cannot be combined with row locks yet (streams[%d].lock)", i)
			break
		}
	}
}

// resolveTenant checks migrate.tenant, shards and nodes.
func resolveTenant(c *scenario.Checker, s *scenario.Resolved, key string, m *Table) *scenario.TenantSpec {
	t := &scenario.TenantSpec{Field: -1, Shards: 1}
	tenantField(c, s, key, m.Tenant, t)
	if m.Shards != nil {
		if *m.Shards < 1 || *m.Shards > maxTenantShards {
			c.Add(key+".shards", "must be from 1 to %d (got %d)", maxTenantShards, *m.Shards)
		} else {
			t.Shards = *m.Shards
		}
	}
	if t.Shards > 1 && t.Field >= 0 && len(s.Parts) > 0 && !slices.ContainsFunc(s.Parts, func(p keyspace.Part) bool { return p.Field != t.Field }) {
		// Every part of the key is the tenant's field: the tenant is one partition, which
		// its new shards cannot share.
		c.Add(key+".shards", "must be 1 here: the key (%s) is the tenant's field alone, so all of the tenant's rows are one partition on one of its %d shards; give the key a part that varies within the tenant to spread it (got %d)",
			partNames(s.Parts), t.Shards, t.Shards)
	}
	if m.Nodes != nil {
		if len(m.Nodes) != t.Shards {
			c.Add(key+".nodes", "must name one node per shard of the tenant: %d (got %d)", t.Shards, len(m.Nodes))
		}
		for i, n := range m.Nodes {
			if n < 0 || n >= len(s.Nodes) {
				c.Add(fmt.Sprintf("%s.nodes[%d]", key, i), "no such node: ids run from 0 to %d (got %d)", len(s.Nodes)-1, n)
			}
		}
		t.Nodes = m.Nodes
	}
	s.MaxShards = max(s.Shards, s.MaxShards) + t.Shards
	return t
}

// tenantField reads the tenant's field and value.
func tenantField(c *scenario.Checker, s *scenario.Resolved, key string, sel *TenantSel, t *scenario.TenantSpec) {
	fi := s.FieldIndex(sel.Field)
	switch {
	case sel.Field == "":
		c.Add(key+".tenant.field", "required: the table field that names the tenant")
		return
	case fi < 0:
		c.Add(key+".tenant.field", "no such field %q in table.fields", sel.Field)
		return
	}
	switch fs := s.Fields[fi]; {
	case fs.Gen != "categorical" && fs.Gen != "uniform" && fs.Gen != "zipf":
		c.Add(key+".tenant.field", "must be a categorical, uniform or zipf field, whose tenants have a known share of the rows (%q is %s)", sel.Field, fs.Gen)
	case sel.Value == nil:
		c.Add(key+".tenant.value", "required: the tenant's value of field %q (%s)", sel.Field, scenario.DescribeValues(fs))
	default:
		v, ok := scenario.FieldValue(fs, *sel.Value)
		if !ok {
			c.Add(key+".tenant.value", "%v is not a value of field %q (%s)", *sel.Value, sel.Field, scenario.DescribeValues(fs))
		}
		t.Field, t.Value, t.Text = fi, v, sel.Field+"="+sel.Value.String()
	}
}

// partNames returns the key's parts as the scenario wrote them, comma-separated.
func partNames(parts []keyspace.Part) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// text says what a migrate action starts, for the timeline.
func text(s *scenario.Resolved, _ []sim.Node, _ *scenario.ActionSpec) string {
	m := s.Migration
	t := m.Tenant
	if t == nil {
		if m.ReadBoth {
			// No dual writes (docs/migrations.md): writes go to the new layout alone,
			// reads visit both, and the backfill runs only when it has a rate.
			text := "migration started: writes go to " + m.To + ", reads visit both layouts"
			if m.Rate > 0 {
				return text + ", backfill of the old rows"
			}
			return text + ", no backfill"
		}
		return "migration started: dual writes and backfill to " + m.To
	}
	shards := "a shard"
	if t.Shards > 1 {
		shards = fmt.Sprintf("%d shards", t.Shards)
	}
	return fmt.Sprintf("migration started: %s moves to %s of its own (dual writes and backfill of its rows)", t.Text, shards)
}
