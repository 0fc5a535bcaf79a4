package metrics

import "github.com/shardsim/shardsim/sim"

// Rebalance is what a run's add_nodes action did (issue 21), in seconds since the start
// of the run; a time not reached is nil.
type Rebalance struct {
	Start, Done *float64
	// Moves are the shard moves planned, MovesDone those done by the end of the run.
	Moves, MovesDone int
	RowsCopied       int64
	// CopyCPU is the CPU time (core-seconds) of the copies; Rate their rate in rows per
	// second, after the CPU cap.
	CopyCPU, Rate float64
}

// RebalanceOf returns the run's rebalance, or nil.
func RebalanceOf(r *sim.Result) *Rebalance {
	g := RebalanceReport(r)
	if g == nil {
		return nil
	}
	sec := func(t sim.Time) *float64 {
		if t < 0 {
			return nil
		}
		return ptr(t.Seconds())
	}
	b := &Rebalance{Start: sec(g.Start), Done: sec(g.Done), Moves: len(g.Moves), RowsCopied: g.RowsCopied,
		CopyCPU: g.CopyCPU.Seconds(), Rate: g.Rate}
	for _, mv := range g.Moves {
		if mv.Done >= 0 {
			b.MovesDone++
		}
	}
	return b
}
