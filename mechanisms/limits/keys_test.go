package limits_test

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// limitsOf is the limits' setting among s's mechanisms, and how many there are.
func limitsOf(s *scenario.Resolved) (l limits.Limits, n int) {
	for _, m := range s.Mechanisms {
		if x, ok := m.(limits.Limits); ok {
			l, n = x, n+1
		}
	}
	return l, n
}

// TestKeys: a scenario without [keyspace.limits] has no limits; one with it has one
// setting, what scenario resolved its keys to (their checks are scenario's:
// scenario/problems_test.go), with a burst_initial of its own.
func TestKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, "")
	if _, n := limitsOf(s); len(probs) != 0 || n != 0 {
		t.Fatalf("without [keyspace.limits]: %d limits, problems %q; want none", n, probs)
	}
	s, probs = mechtest.Resolve(t, "[keyspace.limits]\nwrite_units = 100\ntable_write_units = 300\nburst = \"10s\"\nburst_initial = \"2s\"\nadaptive = true\n")
	if len(probs) != 0 {
		t.Fatalf("problems %q", probs)
	}
	l, n := limitsOf(s)
	if n != 1 || !sameSettings(l.Settings, *s.Limits) {
		t.Fatalf("%d limits, settings %+v; want one, %+v", n, l.Settings, *s.Limits)
	}
	if l.Settings.WriteUnits != 100 || l.Settings.TableWriteUnits != 300 || l.Settings.Burst != 10*sim.Second || !l.Settings.Adaptive ||
		*l.Settings.BurstInitial != 2*sim.Second || l.Settings.BurstInitial == s.Limits.BurstInitial {
		t.Errorf("settings %+v (burst_initial %v at %p, scenario's at %p): want the keys' values, and a burst_initial of its own",
			l.Settings, *l.Settings.BurstInitial, l.Settings.BurstInitial, s.Limits.BurstInitial)
	}
	for _, c := range []struct{ extra, want string }{
		{"write_units = 0.0", "keyspace.limits.write_units: must be a positive number of units per second (got 0)"},
		{"read_units = -1.0", "keyspace.limits.read_units: must be a positive number of units per second (got -1)"},
		{"burst = \"10s\"\nburst_initial = \"20s\"", `keyspace.limits.burst_initial: must be at most burst = "10s": a bank holds no more (got "20s")`},
		{"burst_initial = \"400s\"", `keyspace.limits.burst_initial: must be at most burst = "300s": a bank holds no more (got "400s")`},
		{"write_unit = 10.0", `keyspace.limits.write_unit: unknown key; did you mean "write_units"?`},
	} {
		_, probs := mechtest.Resolve(t, "[keyspace.limits]\n"+c.extra+"\n")
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}

// sameSettings compares two settings, their burst_initial by value.
func sameSettings(a, b scenario.PartitionLimits) bool {
	if (a.BurstInitial == nil) != (b.BurstInitial == nil) || (a.BurstInitial != nil && *a.BurstInitial != *b.BurstInitial) {
		return false
	}
	a.BurstInitial, b.BurstInitial = nil, nil
	return a == b
}

// TestWindowsHeld: limits that split a throttled partition (split_for_heat) change the
// shards during the run, so the variant keeps its shard series however many shard-windows
// it has (scenario.Resolved.Streamed is false), as this folder registers, even without
// the split policy that automatic splits' folder resolves from it; limits that split
// nothing stream them above scenario.StreamShardCells.
func TestWindowsHeld(t *testing.T) {
	defer func(n int64) { scenario.StreamShardCells = n }(scenario.StreamShardCells)
	scenario.StreamShardCells = 0
	for _, heat := range []bool{false, true} {
		s := scenario.Resolved{Scenario: scenario.Scenario{Duration: 10 * sim.Second, Window: sim.Second}, Shards: 4, Limits: &scenario.PartitionLimits{WriteUnits: 100, SplitForHeat: heat}}
		if got := s.Streamed(); got == heat {
			t.Errorf("split_for_heat %v: streamed %v, want %v", heat, got, !heat)
		}
	}
}
