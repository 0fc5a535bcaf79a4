package report

import (
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestClaimBeforeMovedStart: black-friday's first claim is about 08:00. With the start
// moved to 08:10 on the command line the claim is before the run: it is left unmeasured
// and says so, rather than being refused or read as the next morning. With the start moved
// to 07:55 and a run of 2 minutes, 08:00 is after the run, not before it: the note says
// the run ends first (it once said "the run starts after 08:00").
func TestClaimBeforeMovedStart(t *testing.T) {
	tests := []struct{ start, duration, note string }{
		{"08:10", "10s", "not measured: the run starts after 08:00"},
		{"07:55", "2m", "not measured: the run ends before 08:00"},
	}
	for _, tc := range tests {
		sc, err := scenarios.Load("black-friday", scenarios.Options{
			Sets:      []string{"start=" + tc.start},
			Overrides: []scenarios.Override{{Flag: "--duration " + tc.duration, Key: "duration", Value: `"` + tc.duration + `"`, ScaleWarmup: true}},
			Variants:  []string{"before"},
		})
		if err != nil {
			t.Fatal(err)
		}
		v := sc.Variants[0]
		sum := Summarize(describeScenario(sc), []Run{{Variant: describeVariant(v), Result: sim.Run(v.Model())}})
		c := sum.Claims[0]
		if c.Value != nil || c.Note != tc.note {
			t.Errorf("start %s, duration %s: claim %q: value %v, note %q; want none and %q", tc.start, tc.duration, c.Text, c.Value, c.Note, tc.note)
		}
	}
}
