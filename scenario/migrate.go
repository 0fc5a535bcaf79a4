package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// MigrationSpec is a resolved migrate action (docs/migrations.md; docs/scenario.md,
// [[actions]] migrate).
type MigrationSpec struct {
	Key  string   // its dotted key, "actions[2].migrate", for the loader's messages
	At   sim.Time // when dual writes and the backfill start
	To   string   // the variant whose layout the table moves to
	Rate float64  // backfill rows per second
	// Cutover is a time, sim.CutoverBackfill or sim.CutoverNever.
	Cutover sim.Time
	// ReadCost and WriteCost are the CPU time of copying one row (0: the variant's point
	// read's and write's cost, see build).
	ReadCost, WriteCost sim.Time
	// MaxCPU caps the backfill's CPU on a node (a fraction of its cores; 0: no cap).
	MaxCPU float64
	// Verify is the verification period after the cutover (0: none).
	Verify sim.Time
	// Outbox is the lag of asynchronous dual writes (0: synchronous).
	Outbox sim.Time
	// ReadBoth: reads = "both" (the migration's ReadBoth, mechanisms/migrate).
	ReadBoth bool
	// Target is the resolved variant To names, set by the scenario loader (LinkMigration).
	Target *Resolved
	// Tenant, when set, moves one tenant alone (To is then empty and Target nil).
	Tenant *TenantSpec
}

// TenantSpec is a resolved migrate.tenant: the rows whose field Field holds Value move to
// Shards new shards on Nodes (one node per shard).
type TenantSpec struct {
	Field int
	Value uint64
	// Text is the tenant as written: "tenant_id=acme".
	Text   string
	Shards int
	Nodes  []int
}

// maxTenantShards bounds migrate.shards.
const maxTenantShards = 1024

// resolveMigrate checks an action's migrate table. What it can check alone is checked
// here; the variant it names is checked by LinkMigration.
func resolveMigrate(c *checker, f *File, s *Resolved, key string, at sim.Time, m *Migrate) {
	if s.Migration != nil {
		c.add(key, "a run holds one migration, and %s already starts one", s.Migration.Key)
		return
	}
	ms := &MigrationSpec{Key: key, At: at, To: m.To, Cutover: sim.CutoverBackfill}
	migrateWhat(c, s, key, m, ms)
	switch m.Reads {
	case "", "old":
	case "both":
		ms.ReadBoth = true
	default:
		c.add(key+".reads", "must be \"old\" (reads stay on the old layout until the cutover) or \"both\" (writes go to the new layout, reads visit both) (got %q)", m.Reads)
	}
	migrateBackfill(c, key, m, ms)
	migrateCutover(c, s, key, at, m, ms)
	migrateCosts(c, key, m, ms)
	migrateConflicts(c, s, key, ms)
	s.Migration = ms
}

// migrateWhat reads what moves: the whole table to another variant's layout (to), or one
// tenant to shards of its own.
func migrateWhat(c *checker, s *Resolved, key string, m *Migrate, ms *MigrationSpec) {
	switch {
	case m.Tenant != nil && m.To != "":
		c.add(key+".tenant", "moves one tenant to shards of its own, and to moves the whole table: give one of them")
	case m.Tenant != nil:
		ms.Tenant = resolveTenant(c, s, key, m)
	case m.Shards != nil || m.Nodes != nil:
		k := "shards"
		if m.Shards == nil {
			k = "nodes"
		}
		c.add(key+"."+k, "applies only with tenant = { field, value }: the tenant's own shards")
	case strings.TrimSpace(m.To) == "":
		c.add(key+".to", "required: the name of the variant whose key design and shards the table moves to (or tenant = { field, value } to move one tenant alone)")
	}
}

// migrateBackfill reads the backfill's rate, which a migration that reads both layouts
// may leave out when it cuts over at a set time or never.
func migrateBackfill(c *checker, key string, m *Migrate, ms *MigrationSpec) {
	switch r := m.BackfillRate; {
	case r == nil && ms.ReadBoth && m.Cutover != "" && m.Cutover != "backfill":
		// No backfill: the old rows stay where they are, and reads visit both layouts.
	case r == nil && ms.ReadBoth:
		c.add(key+".cutover", "required without a backfill_rate: a clock time, a duration since the start, or \"never\" (there is no backfill to wait for)")
	default:
		ms.Rate = c.rowRate(key+".backfill_rate", "the backfill copies", r)
	}
}

// migrateCutover reads when reads move to the new layout: when the backfill ends, never,
// or at a time after the migration starts.
func migrateCutover(c *checker, s *Resolved, key string, at sim.Time, m *Migrate, ms *MigrationSpec) {
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
		c.add(key+".cutover", "must be \"backfill\", \"never\", or a clock time such as \"10:30\" or a duration since the start such as \"2h\": %v", err)
	case t <= at:
		c.add(key+".cutover", "must come after the migration starts at %s (got %q)", units.Clock(0, s.Start+at, units.TimeOfDay), m.Cutover)
	default:
		ms.Cutover = t
	}
}

// migrateCosts reads the copy's costs and CPU cap, the outbox's lag and the verification
// period.
func migrateCosts(c *checker, key string, m *Migrate, ms *MigrationSpec) {
	if m.ReadCost.Set() {
		ms.ReadCost = c.duration(key+".read_cost", m.ReadCost, "", 1)
	}
	if m.WriteCost.Set() {
		ms.WriteCost = c.duration(key+".write_cost", m.WriteCost, "", 1)
	}
	ms.MaxCPU = c.maxCPU(key+".max_cpu", m.MaxCPU)
	if m.Outbox.Set() {
		ms.Outbox = c.duration(key+".outbox", m.Outbox, "", 0)
	}
	if m.Verify.Set() {
		ms.Verify = c.duration(key+".verify", m.Verify, "", 0)
		if ms.Cutover == sim.CutoverNever && ms.Verify > 0 {
			c.add(key+".verify", "applies after a cutover, and cutover = \"never\" has none")
		}
	}
}

// migrateConflicts refuses what the engine does not combine with a migration yet.
func migrateConflicts(c *checker, s *Resolved, key string, ms *MigrationSpec) {
	if ms.Tenant != nil && ms.ReadBoth {
		c.add(key+".reads", "must be \"old\" when one tenant moves: its rows are copied, not left behind")
	}
	if ms.Tenant != nil && ms.Verify > 0 {
		c.add(key+".verify", "cannot be combined with tenant yet (the verification period's CPU is counted for whole tables)")
	}
	switch {
	case s.Split != nil:
		c.add(key, "cannot be combined with keyspace.split (automatic splits) yet")
	case s.Limits != nil:
		c.add(key, "cannot be combined with partition limits yet")
	}
	for i, st := range s.Streams {
		if st.Lock.Mean > 0 {
			c.add(key, "cannot be combined with row locks yet (streams[%d].lock)", i)
			break
		}
	}
}

// LinkMigration checks that the variant a migration moves to fits the one that migrates
// (self is the migrating variant's name) and links it; it returns the problem, if any,
// with the dotted key under the migration's, or the zero FieldError.
func LinkMigration(s *Resolved, self string, target *Resolved, have []string) (FieldError, bool) {
	m := s.Migration
	key := m.Key + ".to"
	switch {
	case m.To == self:
		return FieldError{Key: key, Msg: fmt.Sprintf("names the variant that migrates (%q): name another variant, whose layout the table moves to", self)}, false
	case target == nil:
		return FieldError{Key: key, Msg: fmt.Sprintf("no such variant %q (have %s)", m.To, strings.Join(have, ", "))}, false
	case len(target.Nodes) != len(s.Nodes) || !equalNodes(target.Nodes, s.Nodes):
		return FieldError{Key: key, Msg: fmt.Sprintf("variant %q runs on another cluster (%d nodes); a migration keeps the nodes: give both variants the same [cluster]", m.To, len(target.Nodes))}, false
	case strings.Join(target.FieldNames, ",") != strings.Join(s.FieldNames, ","):
		return FieldError{Key: key, Msg: fmt.Sprintf("variant %q has another table (fields %s, not %s); a migration keeps the rows", m.To, strings.Join(target.FieldNames, ", "), strings.Join(s.FieldNames, ", "))}, false
	case !sameStreams(target.Streams, s.Streams):
		return FieldError{Key: key, Msg: fmt.Sprintf("variant %q has other streams (names and operations differ); a migration keeps the traffic", m.To)}, false
	}
	m.Target = target
	return FieldError{}, true
}

func equalNodes(a, b []sim.Node) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameStreams reports whether two variants have the same streams: names and operations,
// in the same order.
func sameStreams(a, b []StreamSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Op != b[i].Op {
			return false
		}
	}
	return true
}

// resolveTenant checks migrate.tenant, shards and nodes.
func resolveTenant(c *checker, s *Resolved, key string, m *Migrate) *TenantSpec {
	t := &TenantSpec{Field: -1, Shards: 1}
	tenantField(c, s, key, m.Tenant, t)
	if m.Shards != nil {
		if *m.Shards < 1 || *m.Shards > maxTenantShards {
			c.add(key+".shards", "must be from 1 to %d (got %d)", maxTenantShards, *m.Shards)
		} else {
			t.Shards = *m.Shards
		}
	}
	if t.Shards > 1 && t.Field >= 0 && len(s.Parts) > 0 && !slices.ContainsFunc(s.Parts, func(p keyspace.Part) bool { return p.Field != t.Field }) {
		// Every part of the key is the tenant's field: the tenant is one partition, which
		// its new shards cannot share.
		c.add(key+".shards", "must be 1 here: the key (%s) is the tenant's field alone, so all of the tenant's rows are one partition on one of its %d shards; give the key a part that varies within the tenant to spread it (got %d)",
			partNames(s.Parts), t.Shards, t.Shards)
	}
	if m.Nodes != nil {
		if len(m.Nodes) != t.Shards {
			c.add(key+".nodes", "must name one node per shard of the tenant: %d (got %d)", t.Shards, len(m.Nodes))
		}
		for i, n := range m.Nodes {
			if n < 0 || n >= len(s.Nodes) {
				c.add(fmt.Sprintf("%s.nodes[%d]", key, i), "no such node: ids run from 0 to %d (got %d)", len(s.Nodes)-1, n)
			}
		}
		t.Nodes = m.Nodes
	}
	s.MaxShards = max(s.Shards, s.MaxShards) + t.Shards
	return t
}

// tenantField reads the tenant's field and value.
func tenantField(c *checker, s *Resolved, key string, sel *TenantSel, t *TenantSpec) {
	fi := s.fieldIndex(sel.Field)
	switch {
	case sel.Field == "":
		c.add(key+".tenant.field", "required: the table field that names the tenant")
		return
	case fi < 0:
		c.add(key+".tenant.field", "no such field %q in table.fields", sel.Field)
		return
	}
	switch fs := s.Fields[fi]; {
	case fs.Gen != "categorical" && fs.Gen != "uniform" && fs.Gen != "zipf":
		c.add(key+".tenant.field", "must be a categorical, uniform or zipf field, whose tenants have a known share of the rows (%q is %s)", sel.Field, fs.Gen)
	case sel.Value == nil:
		c.add(key+".tenant.value", "required: the tenant's value of field %q (%s)", sel.Field, describeValues(fs))
	default:
		v, ok := fieldValue(fs, *sel.Value)
		if !ok {
			c.add(key+".tenant.value", "%v is not a value of field %q (%s)", *sel.Value, sel.Field, describeValues(fs))
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
