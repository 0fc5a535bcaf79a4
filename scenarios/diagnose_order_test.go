package scenarios_test

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	_ "github.com/shardsim/shardsim/scenarios"
)

// TestDiagnosisOrder: with every mechanism linked (the loader imports them all), the
// diagnosis rules are applied and reported in the order the reports were made in before
// the mechanisms' rules moved to their folders, each mechanism's at the place its rank
// gives it, whatever the packages' init order: hot_shard_many_keys, last, names only the
// shards no rule before it explained. The mechanisms' stream alerts are raised in their
// order too. A rule or an alert of a mechanism added since (lessRegistered) may stand
// anywhere among the registered ones, so that a new mechanism's folder needs no edit here:
// its rank, which its own test reads, places it.
func TestDiagnosisOrder(t *testing.T) {
	want := []string{"the mechanisms' stream rules", "the mechanisms' wait rules", "dominant_tenant, hot_key", "low_cardinality, monotonic_key",
		"synchronized_burst", "cluster_overloaded", "cache_stampede", "monotonic_key (split chain)", "hot_index_partition", "placement", "hot_shard_many_keys"}
	got := diagnose.Rules()
	first, last := slices.Index(got, "cluster_overloaded"), slices.Index(got, "placement")
	if kept := lessRegistered(got, want, first, last); !slices.Equal(kept, want) {
		t.Errorf("rules %q,\nwant %q, with any rule registered since between cluster_overloaded and placement", got, want)
	}
	alerts := diagnose.AlertKinds()
	if kept, want := lessRegistered(alerts, []string{"throttled", "lock_timeout"}, -1, len(alerts)), []string{"throttled", "lock_timeout"}; !slices.Equal(kept, want) {
		t.Errorf("the mechanisms' stream alerts %q, want %q among them in that order", alerts, want)
	}
}

// lessRegistered is got less the names that known does not hold and that stand strictly
// between indices first and last, where the registered ones are: what is left must be
// known, in its order.
func lessRegistered(got, known []string, first, last int) []string {
	var kept []string
	for i, n := range got {
		if slices.Contains(known, n) || i <= first || i >= last {
			kept = append(kept, n)
		}
	}
	return kept
}
