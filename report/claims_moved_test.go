package report

import (
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestClaimBeforeMovedStart: black-friday's first claim is about 08:00. With the start
// moved to 08:10 on the command line the claim is before the run: it is left unmeasured
// and says so, rather than being refused or read as the next morning.
func TestClaimBeforeMovedStart(t *testing.T) {
	sc, err := scenarios.Load("black-friday", scenarios.Options{
		Sets:      []string{"start=08:10"},
		Overrides: []scenarios.Override{{Flag: "--duration 10s", Key: "duration", Value: `"10s"`, ScaleWarmup: true}},
		Variants:  []string{"before"},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	sum := Summarize(&sc.Scenario, []Run{{Variant: &v.Variant, Result: sim.Run(v.Model())}})
	c := sum.Claims[0]
	if c.Value != nil || c.Note != "not measured: the run starts after 08:00" {
		t.Errorf("claim %q: value %v, note %q; want none and 'not measured: the run starts after 08:00'", c.Text, c.Value, c.Note)
	}
}
