package sim_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// staticTable is a row model of a table that holds 10,000 rows written before the run and
// gains none during it, spread over the key's one part (4 regions) as 40/30/20/10%: its
// partitions hold 4,000, 3,000, 2,000 and 1,000 rows.
func staticTable(limit int64) *keyspace.Rows {
	const history, total = int64(sim.Hour), 10_000.0
	shares := []float64{0.4, 0.3, 0.2, 0.1}
	return &keyspace.Rows{History: history, Limit: limit, Sources: []keyspace.RowSource{{
		Written: func(a, b int64) float64 { // rows with row times in [a, b) ∩ [-history, 0)
			return total * float64(max(min(b, 0)-max(a, -history), 0)) / float64(history)
		},
		Share: []func(uint64) float64{func(v uint64) float64 { return shares[v] }},
	}}}
}

// rowsModel is one node of 10,000 cores (so no scan ever waits), no network, and one scan
// stream at 200/s for 100 s that reads every region of staticTable on one shard.
func rowsModel(t *testing.T, kind sim.ServiceKind, limit int64) *sim.Model {
	t.Helper()
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0, Name: "region"}}}
	p, err := keyspace.NewQueryPlanner(d, keyspace.NewModulo(1), []keyspace.PartQuery{{Mode: keyspace.Enumerate, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	p.SetRows(staticTable(limit))
	return &sim.Model{
		Seed: 7, Duration: 100 * sim.Second, Window: 10 * sim.Second,
		Nodes: []sim.Node{{Cores: 10_000}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "dashboard", Op: sim.Scan, Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 200}}),
			Fields: []workload.Generator{nil}, Planner: p, Cost: sim.Millisecond, RowCost: 2 * sim.Microsecond,
			Service: sim.Service{Kind: kind}, RowsModeled: true,
		}},
	}
}

// TestScanRowCost holds a scan's service time to its closed form: cost x partitions +
// row_cost x rows. With no queue and no network a scan's latency is its service time.
//   - Without a limit a scan reads 4 partitions and 10,000 rows: 1 ms x 4 + 2 us x 10,000
//     = 24 ms, exactly with constant service.
//   - With limit = 5,000 it reads region 0 (4,000 rows) and stops 1,000 rows into region 1:
//     2 partitions, 5,000 rows, 1 ms x 2 + 2 us x 5,000 = 12 ms.
//   - Exponential service (seed 7, about 20,000 scans): the partitions' part is the sum of
//     4 exponentials of mean 1 ms (sd 2 ms per scan), the rows' part is exact, so the mean
//     is 24 ms with a standard error of 2/sqrt(20,000) = 0.014 ms; tolerance 0.1 ms.
func TestScanRowCost(t *testing.T) {
	for _, c := range []struct {
		name        string
		kind        sim.ServiceKind
		limit       int64
		parts, rows int64 // per scan
		mean, tol   float64
	}{
		{"constant", sim.Constant, 0, 4, 10_000, 24, 1e-9},
		{"constant limit 5000", sim.Constant, 5_000, 2, 5_000, 12, 1e-9},
		{"exponential", sim.Exponential, 0, 4, 10_000, 24, 0.1},
	} {
		r := sim.Run(rowsModel(t, c.kind, c.limit))
		s := &r.Streams[0]
		if s.Offered < 19_000 {
			t.Fatalf("%s: only %d scans", c.name, s.Offered)
		}
		if s.Partitions != c.parts*s.Offered || s.RowsRead != c.rows*s.Offered {
			t.Errorf("%s: %d scans read %d partitions and %d rows, want %d and %d each", c.name, s.Offered, s.Partitions, s.RowsRead, c.parts, c.rows)
		}
		if got := s.LatencySum / float64(s.Completed) / float64(sim.Millisecond); math.Abs(got-c.mean) > c.tol {
			t.Errorf("%s: mean service %.4f ms, want %.4f ms within %g", c.name, got, c.mean, c.tol)
		}
	}
}
