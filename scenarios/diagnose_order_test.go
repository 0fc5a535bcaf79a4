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
// order too.
func TestDiagnosisOrder(t *testing.T) {
	want := []string{"the mechanisms' stream rules", "the mechanisms' wait rules", "dominant_tenant, hot_key", "low_cardinality, monotonic_key",
		"synchronized_burst", "cluster_overloaded", "cache_stampede", "monotonic_key (split chain)", "hot_index_partition", "placement", "hot_shard_many_keys"}
	if got := diagnose.Rules(); !slices.Equal(got, want) {
		t.Errorf("rules %q,\nwant %q", got, want)
	}
	if got, want := diagnose.AlertKinds(), []string{"throttled", "lock_timeout"}; !slices.Equal(got, want) {
		t.Errorf("the mechanisms' stream alerts %q, want %q", got, want)
	}
}
