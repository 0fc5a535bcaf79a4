package compile_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestRowModel checks the row model build makes of black-friday's "fixed" variant, key
// (region_id, hour(ts), hash(order_id, 8)): orders arrive at 1,000/s before the start (the
// schedule's first rate, carried back over the 30-day history), region "west" has weight
// 35 of 100 and each hash bucket 1/8, so an hour of history holds 1,000 x 3,600 x 0.35 / 8
// = 157,500 rows of west in bucket 0. The dashboard's scan, limited to 1,000 rows, reads
// them from its first partition, west's newest hour, in bucket 0.
func TestRowModel(t *testing.T) {
	sc, err := scenarios.Load("black-friday", scenarios.Options{Variants: []string{"fixed"},
		Sets: []string{`streams[2].row_cost="1us"`, `streams[2].limit=1000`}})
	if err != nil {
		t.Fatal(err)
	}
	rs := sc.Variants[0].Spec
	m := compile.RowModel(rs, &rs.Streams[2])
	if len(m.Sources) != 1 || m.Limit != 1000 || m.History != int64(30*24*sim.Hour) || m.OnePerKey {
		t.Fatalf("model %+v: want one source, limit 1000, 30 days of history", m)
	}
	src := m.Sources[0]
	hour := int64(sim.Hour)
	got := src.Written(-2*hour, -hour) * src.Share[0](0) * src.Share[2](0)
	if src.Share[1] != nil || math.Abs(got-157_500) > 1e-6 {
		t.Errorf("west's hour -2h..-1h in bucket 0 holds %v rows, want 157,500 (shares %v)", got, src.Share)
	}
	mod := compile.Model(rs)
	visits := mod.Streams[2].Planner.Plan(nil, rand.New(rand.NewPCG(1, 1)), make([]uint64, 3), 10*hour)
	var rows, parts int64
	for _, v := range visits {
		rows, parts = rows+v.Rows, parts+int64(v.Partitions)
	}
	if rows != 1000 || parts != 1 || !mod.Streams[2].RowsModeled || mod.Streams[2].RowCost != sim.Microsecond {
		t.Errorf("the dashboard read %d rows in %d partitions (%v); want 1,000 in 1", rows, parts, visits)
	}
}

// TestExplainCountsRows: explain's offered load counts a scan's rows. black-friday's
// "before" variant with the dashboard at row_cost = "10ns" reads about 86 million rows per
// refresh (24 hours of orders, more as the run's own orders join them) at 0.5/s on shard
// 11, so the shard's mean load rises by at least 0.5/s x 86.4M x 10 ns / 4 cores = 10.8%.
func TestExplainCountsRows(t *testing.T) {
	load := func(sets ...string) (float64, float64) {
		sc, err := scenarios.Load("black-friday", scenarios.Options{Variants: []string{"before"}, Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		ex := compile.Explain("before", sc.Variants[0].Spec)
		return ex.Shards[11].Mean, ex.Streams[2].Rows
	}
	plain, _ := load()
	rowsLoad, rows := load(`streams[2].row_cost="10ns"`)
	if rows < 86.4e6 || rowsLoad-plain < 0.108 {
		t.Errorf("with rows: %.0f rows per scan and shard 11 at %.3f against %.3f without; want at least 86.4 million and 0.108 more", rows, rowsLoad, plain)
	}
}
