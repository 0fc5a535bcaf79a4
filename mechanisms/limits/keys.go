package limits

import (
	"math"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Partition limits' keys, the [keyspace.limits] table (docs/scenario.md, docs/mitigations.md
// "Partition throughput limits"), are declared and checked here. What they resolve to,
// scenario.PartitionLimits in Resolved.Limits, is read by the rest of the scenario (splits
// read split_for_heat; a migration, a rebalance and an index refuse limits), so they are
// resolved right after [keyspace] (scenario.RegisterKeyspaceMechanism); the setting is
// appended in the mechanisms' order (resolveSetting).

// Table is the [keyspace.limits] table as written.
type Table struct {
	WriteUnits      *float64          `toml:"write_units"`
	ReadUnits       *float64          `toml:"read_units"`
	TableWriteUnits *float64          `toml:"table_write_units"`
	TableReadUnits  *float64          `toml:"table_read_units"`
	Burst           scenario.Duration `toml:"burst"`
	BurstInitial    scenario.Duration `toml:"burst_initial"`
	Adaptive        *bool             `toml:"adaptive"`
	SplitForHeat    *bool             `toml:"split_for_heat"`
}

var tableKey = scenario.KeyspaceKey[Table]("limits", "none",
	"a table: per-partition throughput limits in the manner of DynamoDB, a shard's units a second, banked up to `burst`: its keys are listed in [`[keyspace.limits]`](#keyspacelimits) above (docs/mitigations.md, \"Partition throughput limits\")")

// Defaults and bounds of the keys.
const (
	defaultWriteUnits = 1000
	defaultReadUnits  = 3000
	defaultBurst      = "300s"
	maxBurst          = 10_000 * 24 * sim.Hour // as every duration
)

func init() {
	scenario.RegisterKeyspaceMechanism(resolveKeys)
	scenario.RegisterMechanism(resolveSetting)
	scenario.RegisterWindowsHeld(splitsForHeat)
	scenario.RegisterLayoutNote(noteRank, note)
}

// noteRank places the limits' note after the followers' and the splits' among explain's
// notes on where the rows are served (scenario.RegisterLayoutNote).
const noteRank = 30

// note says that explain's figures ignore the limits; "" without limits.
func note(s *scenario.Resolved) string {
	if s.Limits == nil {
		return ""
	}
	return "the figures ignore the per-partition limits: throttled requests are counted as served"
}

// splitsForHeat reports whether s's limits split a throttled partition (split_for_heat):
// its shards change during the run, so its shard series are held, not streamed
// (scenario.Resolved.Streamed).
func splitsForHeat(s *scenario.Resolved) bool { return s.Limits != nil && s.Limits.SplitForHeat }

// resolveKeys reads [keyspace.limits] into s.Limits.
func resolveKeys(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	l, given := tableKey.In(f.Keyspace.Ext)
	if !given {
		return
	}
	units := func(key string, p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		if !(*p > 0) || math.IsInf(*p, 0) {
			c.Add(key, "must be a positive number of units per second (got %v)", *p)
			return def
		}
		return *p
	}
	pl := &scenario.PartitionLimits{
		WriteUnits:      units("keyspace.limits.write_units", l.WriteUnits, defaultWriteUnits),
		ReadUnits:       units("keyspace.limits.read_units", l.ReadUnits, defaultReadUnits),
		TableWriteUnits: units("keyspace.limits.table_write_units", l.TableWriteUnits, 0),
		TableReadUnits:  units("keyspace.limits.table_read_units", l.TableReadUnits, 0),
		Adaptive:        l.Adaptive != nil && *l.Adaptive,
		SplitForHeat:    l.SplitForHeat != nil && *l.SplitForHeat,
	}
	if pl.Burst = c.Duration("keyspace.limits.burst", l.Burst, defaultBurst, 0); pl.Burst > maxBurst {
		c.Add("keyspace.limits.burst", "must be at most 10000d (got %q)", l.Burst)
	}
	if l.BurstInitial.Set() {
		// A bank holds at least one second's units (newBucket).
		b, ok := c.DurationOK("keyspace.limits.burst_initial", l.BurstInitial, "", 0)
		if ok && b > max(pl.Burst, sim.Second) {
			burst := l.Burst.Text
			if burst == "" {
				burst = defaultBurst
			}
			c.Add("keyspace.limits.burst_initial", "must be at most burst = %q: a bank holds no more (got %q)", burst, l.BurstInitial)
		} else if ok {
			pl.BurstInitial = &b
		}
	}
	s.Limits = pl
}

// resolveSetting gives a scenario with a [keyspace.limits] table its limits.
func resolveSetting(_ *scenario.Checker, _ *scenario.File, s *scenario.Resolved) {
	if s.Limits == nil {
		return
	}
	l := *s.Limits
	if b := l.BurstInitial; b != nil {
		bi := *b // the setting owns what it points to
		l.BurstInitial = &bi
	}
	s.Mechanisms = append(s.Mechanisms, Limits{Settings: l})
}
