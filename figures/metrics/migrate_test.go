package metrics

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// TestMigrationPhases: a run of five 10 s windows whose migration starts at 10 s and cuts
// over at 35 s. Window 0 is before, windows 1 and 2 during, window 4 after; window 3
// straddles the cutover and counts in no phase. Each window's latencies are one value
// (1, 40, 60, 500 and 2 ms), so each phase's p99 is its largest window value, to the
// histogram's resolution (3 significant digits: within 0.1%).
func TestMigrationPhases(t *testing.T) {
	r := &sim.Result{Duration: 50 * sim.Second, Elapsed: 50 * sim.Second, Window: 10 * sim.Second, Windows: 5,
		Streams: []sim.StreamResult{{Name: "w", Win: make([]sim.WindowLatency, 5)}},
		Reports: []any{&MigrationResult{Start: 10 * sim.Second, BackfillDone: 30 * sim.Second, Cutover: 35 * sim.Second,
			RowsToCopy: 10, RowsCopied: 10, BackfillCPU: 2 * sim.Second, DualCPU: sim.Second / 2, Copied: []int64{0, 5, 5, 0, 0}}}}
	for w, ms := range []int64{1, 40, 60, 500, 2} {
		win := &r.Streams[0].Win[w]
		win.Hist.RecordValues(ms*1000, 100)
		win.Max = sim.Time(ms) * sim.Millisecond
	}
	got := MigrationsOf(r)
	if len(got) != 1 {
		t.Fatalf("%d migrations, want 1", len(got))
	}
	g := got[0]
	if *g.Start != 10 || *g.BackfillDone != 30 || *g.Cutover != 35 || g.ExtraCPU != 2.5 || g.RowsCopied != 10 {
		t.Errorf("start %v, backfill done %v, cutover %v, extra CPU %v, rows %d; want 10, 30, 35, 2.5, 10", *g.Start, *g.BackfillDone, *g.Cutover, g.ExtraCPU, g.RowsCopied)
	}
	p := g.Phases[0]
	for _, c := range []struct {
		what string
		got  *float64
		want float64
	}{{"before", p.Before, 1}, {"during", p.During, 60}, {"after", p.After, 2}} {
		if c.got == nil || *c.got < c.want*0.999 || *c.got > c.want*1.001 {
			t.Errorf("p99 %s = %v, want %v ms", c.what, c.got, c.want)
		}
	}
	MigrationReport(r).Cutover = -1 // never cut over: "during" runs to the end, "after" is empty
	p = MigrationsOf(r)[0].Phases[0]
	if p.After != nil || p.During == nil || *p.During < 499 {
		t.Errorf("without a cutover: during %v, after %v; want 500 ms and none", p.During, p.After)
	}
}

// TestSLOByPhase: an SLO is judged over the whole run and in each phase of a migration.
// The run of TestMigrationPhases has p99s of 1, 60 and 2 ms before, during and after (the
// straddling window's 500 ms counts only in the whole run's figure, set here by hand): a
// p99 < 50 ms SLO that the whole run meets fails during the migration; one of 100 ms
// holds. A backfill that did not copy every row fails every SLO as "did not finish".
func TestSLOByPhase(t *testing.T) {
	r := &sim.Result{Duration: 50 * sim.Second, Elapsed: 50 * sim.Second, Window: 10 * sim.Second, Windows: 5,
		Streams: []sim.StreamResult{{Name: "w", Win: make([]sim.WindowLatency, 5)}},
		Reports: []any{&MigrationResult{Start: 10 * sim.Second, BackfillDone: 30 * sim.Second, Cutover: 35 * sim.Second,
			RowsToCopy: 10, RowsCopied: 10, Copied: make([]int64, 5)}}}
	for w, ms := range []int64{1, 40, 60, 500, 2} {
		win := &r.Streams[0].Win[w]
		win.Hist.RecordValues(ms*1000, 100)
		win.Max = sim.Time(ms) * sim.Millisecond
		win.Offered = 100
	}
	run := Of(r)
	run.Streams[0].Latency.P99 = ptr(30) // the whole run's figure: under both bounds
	tight, _ := ParseSLO("w:p99<50ms")
	loose, _ := ParseSLO("w:p99<100ms")
	if v := Judge(tight, []*Run{run}); v.OK || !strings.Contains(v.Reason, "during the migration 60.") {
		t.Errorf("p99 < 50 ms: ok %v (%s), want a failure during the migration", v.OK, v.Reason)
	}
	if v := Judge(loose, []*Run{run}); !v.OK {
		t.Errorf("p99 < 100 ms fails: %s", v.Reason)
	}
	MigrationReport(r).RowsCopied, MigrationReport(r).BackfillDone, MigrationReport(r).Cutover = 4, -1, -1
	run = Of(r)
	a := Assess([]SLO{loose}, 1, []*Run{run})
	if a.OK || a.Binding != Unfinished || !strings.Contains(a.Reason, "copied 4 of 10 rows") {
		t.Errorf("an unfinished backfill: ok %v, binding %q (%s); want %q", a.OK, a.Binding, a.Reason, Unfinished)
	}
}

// TestMigrationAccounting: the cutover's due time, the outbox's drained copies, the
// backfill's refused batches and its CPU by window pass from the Result as they are, the
// CPU in core-seconds.
func TestMigrationAccounting(t *testing.T) {
	r := &sim.Result{Duration: 30 * sim.Second, Elapsed: 30 * sim.Second, Window: 10 * sim.Second, Windows: 3,
		Reports: []any{&MigrationResult{Start: 5 * sim.Second, BackfillDone: 12 * sim.Second, CutoverDue: 12 * sim.Second, Cutover: 14 * sim.Second,
			Drained: 800, Refused: 7, BackfillBusy: []sim.Time{0, 1500 * sim.Millisecond, 250 * sim.Millisecond}, Copied: make([]int64, 3)}}}
	g := MigrationsOf(r)[0]
	if g.CutoverDue == nil || *g.CutoverDue != 12 || g.Drained != 800 || g.Refused != 7 {
		t.Errorf("cutover due %v, drained %d, refused %d; want 12, 800, 7", g.CutoverDue, g.Drained, g.Refused)
	}
	if w := g.BackfillCPUPerWindow; len(w) != 3 || w[0] != 0 || w[1] != 1.5 || w[2] != 0.25 {
		t.Errorf("backfill CPU per window %v, want [0 1.5 0.25]", w)
	}
	MigrationReport(r).CutoverDue = -1
	if g := MigrationsOf(r)[0]; g.CutoverDue != nil {
		t.Errorf("a cutover never due has a due time %v", *g.CutoverDue)
	}
}

// TestAfterStartsWhenSettled: the run of TestMigrationPhases, but cut over at 30 s, with
// window 3 (30-40 s, wholly after the cutover) holding the 500 ms of the backlog the old
// layout built, drained by 38 s (Settled). Counted from the cutover, "after" would take
// windows 3 and 4 and read 500 ms, a figure of the old layout; from Settled it takes
// window 4 only (2 ms), and window 3, which straddles 38 s, counts in no phase.
func TestAfterStartsWhenSettled(t *testing.T) {
	r := &sim.Result{Duration: 50 * sim.Second, Elapsed: 50 * sim.Second, Window: 10 * sim.Second, Windows: 5,
		Streams: []sim.StreamResult{{Name: "w", Win: make([]sim.WindowLatency, 5)}},
		Reports: []any{&MigrationResult{Start: 10 * sim.Second, BackfillDone: 30 * sim.Second, Cutover: 30 * sim.Second,
			Settled: 38 * sim.Second, Copied: make([]int64, 5)}}}
	for w, ms := range []int64{1, 40, 60, 500, 2} {
		win := &r.Streams[0].Win[w]
		win.Hist.RecordValues(ms*1000, 100)
		win.Max = sim.Time(ms) * sim.Millisecond
	}
	g := MigrationsOf(r)[0]
	p := g.Phases[0]
	if g.Settled == nil || *g.Settled != 38 {
		t.Errorf("settled %v, want 38 s", g.Settled)
	}
	if p.After == nil || *p.After > 2.01 || p.During == nil || *p.During > 60.1 {
		t.Errorf("during %v, after %v ms; want 60 and 2", p.During, p.After)
	}
	MigrationReport(r).Settled = -1 // nothing issued before the cutover finished after it
	if p := MigrationsOf(r)[0].Phases[0]; p.After == nil || *p.After < 499 {
		t.Errorf("without a backlog after the cutover: after %v ms, want window 3's 500", p.After)
	}
}
