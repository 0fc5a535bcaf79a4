package sweep

import (
	"strings"
	"testing"
)

// TestSweepPlacementCheck: testdata/placement.toml, two tenants of 600 writes/s each
// (1 ms each: 60% of one core) hashed over the shards of two 1-core nodes, seed 6, one
// replication of 20 s. With 6 shards round-robin puts both tenants on node 1 (120%
// offered: it fails p99 < 100 ms) and random placement does not; with 7 it is the other
// way round. So round-robin alone would choose 7 and random 6, and neither meets the SLO
// under both: both rows' binds cells say placement, and the closing line chooses none
// and says what each placement alone would choose. With 3 and 5 shards both
// placements split the tenants: the same verdicts, and no row bound by placement.
func TestSweepPlacementCheck(t *testing.T) {
	slo, err := ParseSLO("w:p99<100ms")
	if err != nil {
		t.Fatal(err)
	}
	sweepOf := func(values ...string) *Sweep {
		c := Config{Scenario: "../../testdata/placement.toml", Axes: []Axis{{Key: "keyspace.shards", Values: values}}, Replications: 1, Parallel: 2,
			SLOs: []SLO{slo}, MaxErrors: 0.001}
		if !NeedsPlacementCheck(c) {
			t.Fatal("a round-robin scenario with SLOs needs the placement check")
		}
		rows, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		random, err := RunPlacement(c)
		if err != nil {
			t.Fatal(err)
		}
		return &Sweep{Scenario: "placement", Config: c, Rows: rows, Random: random}
	}
	sw := sweepOf("6", "7")
	if sw.Rows[0].Assessment.OK || !sw.Rows[1].Assessment.OK || !sw.Random[0].Assessment.OK || sw.Random[1].Assessment.OK {
		t.Fatalf("verdicts round-robin %v %v, random %v %v; want fail, meet, meet, fail", sw.Rows[0].Assessment.OK, sw.Rows[1].Assessment.OK,
			sw.Random[0].Assessment.OK, sw.Random[1].Assessment.OK)
	}
	if a, b := sw.bindsCell(0), sw.bindsCell(1); a != "placement (random: meets)" || b != "placement (random: fails)" {
		t.Errorf("binds cells %q and %q, want placement in both", a, b)
	}
	// sweep.json and sweep.csv carry the random-placement verdict beside the row's own.
	js := sw.JSON()
	if s0, s1 := js.Rows[0].SLO, js.Rows[1].SLO; s0 == nil || s1 == nil || s0.RandomOK == nil || s1.RandomOK == nil || !*s0.RandomOK || *s1.RandomOK {
		t.Errorf("sweep.json: rows' slo %+v and %+v, want random_placement_ok true then false", s0, s1)
	}
	var csvb strings.Builder
	if err := sw.CSV(&csvb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csvb.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ",slo_ok_random_placement") || !strings.HasSuffix(lines[1], ",true") || !strings.HasSuffix(lines[2], ",false") {
		t.Errorf("sweep.csv: want slo_ok_random_placement true then false:\n%s", csvb.String())
	}
	// Neither count meets the SLO under both placements: the CHOICE says so first, then
	// what each placement alone would choose; sweep.json's choice says the same as data.
	if l := sw.closing(); len(l) != 1 || !strings.HasPrefix(l[0], "CHOICE: no keyspace.shards swept meets every SLO (w:p99<100ms) under both placements") ||
		!strings.Contains(l[0], "round_robin alone would choose 7, random alone 6") {
		t.Errorf("closing %q: want no choice under both placements, then 7 round-robin and 6 random", l)
	}
	if ch := js.Choice; len(ch) != 1 || ch[0].Key != "keyspace.shards" || ch[0].Value != nil || ch[0].RoundRobin == nil || *ch[0].RoundRobin != "7" ||
		ch[0].Random == nil || *ch[0].Random != "6" || !ch[0].Disagree {
		t.Errorf("sweep.json choice %+v, want none chosen, 7 round-robin and 6 random", ch)
	}
	same := sweepOf("3", "5")
	for i := range same.Rows {
		if strings.HasPrefix(same.bindsCell(i), "placement") {
			t.Errorf("3 and 5 shards: row %d bound by placement (%q)", i, same.bindsCell(i))
		}
	}
	if l := same.closing(); len(l) != 1 || !strings.Contains(l[0], "under both placements (round_robin and random, same seeds) is 3.") || !strings.Contains(l[0], "gives the same verdicts") {
		t.Errorf("closing %q: want the choice 3, the same under random placement", l)
	}
	// Placement varied or set: no check.
	c := same.Config
	c.Options.Sets = []string{`cluster.placement="random"`}
	if NeedsPlacementCheck(c) {
		t.Error("a sweep that sets the placement needs no placement check")
	}
}
