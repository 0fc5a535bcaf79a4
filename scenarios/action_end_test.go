package scenarios_test

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

// TestActionPastEnd: migration's "migrate at 09:02" variant starts its migration 2 minutes
// into a 6-minute run. An action at or after the end of the run never happens
// (docs/mitigations.md): a run of 2 minutes (the file's own duration) or of 1 minute
// (--duration) is accepted, and its model holds no action and no migration (no mechanism), while the
// action is still checked: a migration to a variant that does not exist is refused.
func TestActionPastEnd(t *testing.T) {
	for _, o := range []scenarios.Options{
		{Sets: []string{`duration="2m"`}},
		{Overrides: []scenarios.Override{{Flag: "--duration 1m", Key: "duration", Value: `"1m"`, ScaleWarmup: true}}},
	} {
		o.Variants = []string{"migrate at 09:02"}
		sc, err := scenarios.Load("migration", o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if m := sc.Variants[0].Model(); len(m.Mechanisms) != 0 {
			t.Errorf("%+v: mechanisms (the actions, a migration) %v; want none", o, m.Mechanisms)
		}
	}
	_, err := scenarios.Load("migration", scenarios.Options{Sets: []string{`duration="2m"`, `variants[2].actions[0].migrate.backfill_rate=0`}})
	if err == nil || !strings.Contains(err.Error(), "variants[2].actions[0].migrate.backfill_rate") {
		t.Errorf("a dropped action's bad setting: error %v, want it named", err)
	}
}
