package capacity

import (
	"testing"

	"github.com/shardsim/shardsim/mechanisms/cache"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// TestLawAsksTheMechanisms: the planner names no mechanism; each says in its folder
// whether it changes the loads a run meets (scenario.RegisterLoadChange) and what service
// it adds at a node (scenario.RegisterServiceAdded). A variant with nothing but one
// mechanism's setting, as its keys resolve it, takes the law off; a follower's apply costlier
// than every stream is the costliest service. Each case fails when its mechanism's
// registration is taken out.
func TestLawAsksTheMechanisms(t *testing.T) {
	put := []scenario.StreamSpec{{Name: "put", Op: sim.Write, Cost: sim.Millisecond}}
	if s := (&scenario.Resolved{Streams: put}); !lawHolds(s) || costliest(s) != sim.Millisecond {
		t.Errorf("no mechanism: law %v, costliest %v; want it to hold, 1ms", lawHolds(s), costliest(s))
	}
	for _, c := range []struct {
		name string
		s    scenario.Resolved
	}{
		{"automatic splits (mechanisms/split)", scenario.Resolved{Split: &scenario.SplitPolicy{}}},
		{"timed actions (mechanisms/operator)", scenario.Resolved{Actions: []scenario.ActionSpec{{At: sim.Second}}}},
		{"a migration (mechanisms/migrate)", scenario.Resolved{Migration: &scenario.MigrationSpec{}}},
		{"a rebalance (mechanisms/rebalance)", scenario.Resolved{Rebalance: &scenario.RebalanceSpec{}}},
		{"a cache (mechanisms/cache)", scenario.Resolved{Mechanisms: []sim.Setting{cache.Cache{}}}},
	} {
		c.s.Streams = put
		if lawHolds(&c.s) {
			t.Errorf("%s: the law holds; want it off, the loads the run meets changed", c.name)
		}
	}
	s := &scenario.Resolved{Streams: put, Replicas: 1, ApplyCost: 3 * sim.Millisecond}
	if got := costliest(s); got != 3*sim.Millisecond {
		t.Errorf("followers' apply_cost of 3ms over writes of 1ms (mechanisms/replicas): costliest %v, want 3ms", got)
	}
}
