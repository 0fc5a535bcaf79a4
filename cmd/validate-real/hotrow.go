package main

import (
	"context"
	"fmt"
	"runtime"
)

// gridRow is one point of a pgbench grid (experiments 4 and 5): measured and predicted.
type gridRow struct {
	benchPoint
	Calibration           bool
	PredThr, PredMeanMs   float64
	PredP50Ms, PredP99Ms  float64 // the model's (first come, first served: every wait alike)
	ThrRatio, MeanRatio   float64
	ThrWithin, MeanWithin bool
}

// grid is experiment 4 (fsync off) or 5 (durable commits): C closed-loop pgbench clients
// on B rows, calibrated from one client on one row, every other point predicted.
type grid struct {
	Settings  []string
	Cs, Bs    []int
	Seconds   int
	Warm      float64 // seconds of each run left out
	Cores     int
	RoundTrip benchPoint // SELECT 1, one client
	Cal       calibration
	Rows      []gridRow
	RT        rtState
}

// point is the grid's row of C clients on B rows (nil when not measured).
func (g *grid) point(C, B int) *gridRow {
	for i := range g.Rows {
		if g.Rows[i].C == C && g.Rows[i].B == B {
			return &g.Rows[i]
		}
	}
	return nil
}

// counts are the grid's predicted points within 15%: throughput, mean latency, of n.
func (g *grid) counts() (thr, mean, n int) {
	for _, r := range g.Rows {
		if r.Calibration {
			continue
		}
		n++
		thr += b2i(r.ThrWithin)
		mean += b2i(r.MeanWithin)
	}
	return thr, mean, n
}

// runGrid measures the round trip and every point of g (predict calibrates the model from
// them and predicts every point).
func runGrid(ctx context.Context, c config, pg *pgServer, tmp, name string, g *grid) error {
	g.Cores = runtime.NumCPU()
	rt, err := pg.pgbench(ctx, pgbenchRun{Script: roundTripScript, C: 1, B: 1, Seconds: g.Seconds, Warm: g.Warm}, tmp, name+"-rtt")
	if err != nil {
		return fmt.Errorf("%s (round trip, SELECT 1): %w", name, err)
	}
	g.RoundTrip = rt
	for _, B := range g.Bs {
		for _, C := range g.Cs {
			pt, err := pg.pgbench(ctx, pgbenchRun{Script: hotRowScript, C: C, B: B, Seconds: g.Seconds, Warm: g.Warm}, tmp, fmt.Sprintf("%s-c%d-b%d", name, C, B))
			if err != nil {
				return fmt.Errorf("%s (pgbench, %d clients on %d rows): %w", name, C, B, err)
			}
			g.Rows = append(g.Rows, gridRow{benchPoint: pt, Calibration: C == 1 && B == 1})
		}
	}
	return nil
}

// experiment4 is the hot-row grid with fsync off; it also measures the open-loop tail
// (experiment 6) on the same server, whose cap is the grid's most clients on one row.
func experiment4(ctx context.Context, c config, pg *pgServer, tmp string, rep *report) error {
	g := &grid{Settings: pgSettings, Cs: []int{1, 2, 4, 8, 16, 32}, Bs: []int{1, 2, 4, 8}, Seconds: 5, Warm: 1, RT: rep.RT}
	if c.short {
		g.Cs, g.Bs, g.Seconds, g.Warm = []int{1, 4, 32}, []int{1}, 2, 0.5
	}
	rep.E4 = g
	if err := pg.setupHotRows(ctx, 32); err != nil {
		return err
	}
	return runGrid(ctx, c, pg, tmp, "experiment 4", g)
}

// experiment5 is the durable grid: the server restarted with fsync and synchronous_commit
// on; 18 points, C = 1, 2, 4, 8, 16, 32 on B = 1, 4, 16 rows.
func experiment5(ctx context.Context, c config, pg *pgServer, tmp string, rep *report) error {
	g := &grid{Settings: pgDurable, Cs: []int{1, 2, 4, 8, 16, 32}, Bs: []int{1, 4, 16}, Seconds: 5, Warm: 1, RT: rep.RT}
	if c.short {
		g.Cs, g.Bs, g.Seconds, g.Warm = []int{1, 16}, []int{1}, 2, 0.5
	}
	rep.E5 = g
	if err := pg.restart(ctx, pgDurable); err != nil {
		return fmt.Errorf("experiment 5 (restarting PostgreSQL with durable commits): %w", err)
	}
	return runGrid(ctx, c, pg, tmp, "experiment 5", g)
}

// openRow is one offered rate of experiment 6.
type openRow struct {
	benchPoint
	Load                  float64 // the offered rate over the row's measured cap
	PredMeanMs, PredP50   float64
	PredP99Ms             float64
	MeanRatio, P99Ratio   float64
	MeanWithin, P99Within bool
}

// openTail is experiment 6: Poisson arrivals (pgbench -R) on one row at fractions of its
// cap, p99 and mean against the model's open loop with the grid's calibration.
type openTail struct {
	Clients int
	Seconds int
	Warm    float64
	Cap     float64 // the grid's throughput of its most clients on one row
	CapC    int
	Cal     calibration
	Rows    []openRow
	RT      rtState
}

func experiment6(ctx context.Context, c config, pg *pgServer, tmp string, rep *report) error {
	g := rep.E4
	e := &openTail{Clients: 32, Seconds: 5, Warm: 1, RT: rep.RT}
	fracs := []float64{0.2, 0.5, 0.8}
	if c.short {
		e.Seconds, e.Warm, fracs = 2, 0.5, []float64{0.5}
	}
	rep.E6 = e
	top := g.Cs[len(g.Cs)-1]
	capPt := g.point(top, 1)
	if capPt == nil {
		return fmt.Errorf("experiment 6: the grid has no point of %d clients on one row (the cap)", top)
	}
	e.Cap, e.CapC = capPt.Throughput, top
	for _, f := range fracs {
		rate := f * e.Cap
		pt, err := pg.pgbench(ctx, pgbenchRun{Script: hotRowScript, C: e.Clients, B: 1, Rate: rate, Seconds: e.Seconds, Warm: e.Warm}, tmp, fmt.Sprintf("experiment6-%.0f", f*100))
		if err != nil {
			return fmt.Errorf("experiment 6 (pgbench -R %.0f on one row): %w", rate, err)
		}
		e.Rows = append(e.Rows, openRow{benchPoint: pt, Load: f})
	}
	return nil
}
