package compile_test

import (
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestOneCoreReasonOrder: a run that mixes what keeps it on one engine names the same
// first reason whichever folder its mechanisms live in: followers before a migration and
// before timed actions, a migration before the actions that start it, a rebalance before
// the action that adds its nodes, and timed actions alone for themselves.
func TestOneCoreReasonOrder(t *testing.T) {
	for _, c := range []struct {
		scenario, variant string
		sets              []string
		want              string
	}{
		{"migration", "migrate at 09:02", nil, "a migration moves shards between nodes"},
		{"migration", "migrate at 09:02", []string{"cluster.replicas=1"}, "replicas couple the nodes"},
		{"black-friday", "stop-gap during the incident: cap, queue, scale up", nil, "timed actions change the cluster during the run"},
		{"black-friday", "stop-gap during the incident: cap, queue, scale up", []string{"cluster.replicas=1", `cluster.read_from="any"`}, "replicas couple the nodes"},
		{"black-friday", "before: PK (order_id), range", []string{"cluster.replicas=1"}, "replicas couple the nodes"},
		{"../testdata/small-rebalance.toml", "", nil, "a rebalance moves shards between nodes"},
	} {
		o := scenarios.Options{Sets: c.sets}
		if c.variant != "" {
			o.Variants = []string{c.variant}
		}
		sc, err := scenarios.Load(c.scenario, o)
		if err != nil {
			t.Fatalf("%s %q %v: %v", c.scenario, c.variant, c.sets, err)
		}
		if got := sim.OneCoreReason(sc.Variants[0].Model()); got != c.want {
			t.Errorf("%s %q %v: OneCoreReason %q, want %q", c.scenario, c.variant, c.sets, got, c.want)
		}
	}
}
