package scenario

import (
	"github.com/shardsim/shardsim/sim"
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
	// read's and write's cost, RowCopyCosts).
	ReadCost, WriteCost sim.Time
	// MaxCPU caps the backfill's CPU on a node (a fraction of its cores; 0: no cap).
	MaxCPU float64
	// Verify is the verification period after the cutover (0: none).
	Verify sim.Time
	// Outbox is the lag of asynchronous dual writes (0: synchronous).
	Outbox sim.Time
	// ReadBoth: reads = "both" (the migration's ReadBoth, mechanisms/migrate).
	ReadBoth bool
	// Target is the resolved variant To names, set by the scenario loader (mechanisms/migrate's Link).
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

// FieldIndex returns the index of the table field name in Fields, -1 when there is none
// (a mechanism's key that names a field: a migration's tenant).
func (s *Resolved) FieldIndex(name string) int { return s.fieldIndex(name) }

// FieldValue maps a value of field f as written to the field's internal value (a
// categorical label to its index, an integer to itself); false when f has no such value.
func FieldValue(f FieldSpec, v Scalar) (uint64, bool) { return fieldValue(f, v) }

// DescribeValues says which values field f takes, for a problem's message: "one of "a",
// "b"", "an integer from 0 to 9".
func DescribeValues(f FieldSpec) string { return describeValues(f) }
