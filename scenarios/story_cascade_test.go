package scenarios_test

import (
	"testing"

	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestHotspotCascadeStory runs the built-in hotspot-cascade (seed 21, 10 simulated
// minutes, about 5.7 million requests a variant) and checks the cascade it describes, each
// bottleneck against its cap, which the import's ramp (500 + 9.17 cases a second per
// second) reaches at a time of its own:
//
//   - as built, the tenant's aggregate row: one lock held 0.5 ms passes 1/0.5 ms = 2,000
//     updates a second, reached at 163.6 s (09:02:44); the diagnosis names hot_row_lock
//     for update_aggregate, first, and not yet the page latch (the row lock caps the
//     facts the latch sees);
//   - with the updates appended as facts, the right edge of the tenant's day: one latch
//     held 0.1 ms passes 10,000 writes a second, the cases' and the facts' (2 x rate),
//     reached at 490.9 s (09:08:11); hot_index_page for import_cases;
//   - with a hash prefix of 8, no bottleneck: no diagnosis at all;
//   - every [[claims]] entry holds (report.Claims, what report.md shows).
//
// Under -short it runs only the first 4 minutes of "as built" and checks the first bind
// (the diagnosis and the first claim).
func TestHotspotCascadeStory(t *testing.T) {
	if testing.Short() {
		sc, err := scenarios.Load("hotspot-cascade", scenarios.Options{Variants: []string{"as built"},
			Overrides: []scenarios.Override{{Flag: "--duration 4m", Key: "duration", Value: `"4m"`, ScaleWarmup: true}}})
		if err != nil {
			t.Fatal(err)
		}
		s := &otherStory{t: t, name: "hotspot-cascade", sc: sc, results: map[string]*sim.Result{"as built": sim.Run(sc.Variants[0].Model())},
			variants: map[string]*scenarios.Variant{"as built": sc.Variants[0]}}
		s.wantDiagnosis("as built", "hot_row_lock", "update_aggregate")
		cs := report.Claims(describe(sc), []report.Run{{Variant: describeVariant(sc.Variants[0]), Result: s.results["as built"]}})
		if len(cs) == 0 || cs[0].Agrees == nil || !*cs[0].Agrees {
			t.Errorf("the first claim (the aggregate row binds at about 09:02:45) does not hold in the first 4 minutes: %+v", cs)
		}
		return
	}
	s := runOtherStory(t, "hotspot-cascade")
	s.wantDiagnosis("as built", "hot_row_lock", "update_aggregate")
	if kinds, _ := s.diagnoses("as built"); len(kinds) == 0 || kinds[0] != "hot_row_lock" {
		t.Errorf("as built: diagnosis %v, want hot_row_lock first", kinds)
	}
	for _, k := range mustKinds(s, "as built") {
		if k == "hot_index_page" {
			t.Errorf("as built: hot_index_page named before the row lock is cleared")
		}
	}
	s.wantDiagnosis("append facts", "hot_index_page", "import_cases")
	s.wantDiagnosis("+ hash prefix of 8", "", "")

	s.wantClaims(6)
}

func mustKinds(s *otherStory, variant string) []string {
	kinds, _ := s.diagnoses(variant)
	return kinds
}
