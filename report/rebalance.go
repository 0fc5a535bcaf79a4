package report

import (
	"fmt"
	"io"
	"math"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// RebalanceSummary is what a variant's add_nodes action did (issue 21), as metrics
// derived it: when the nodes joined and the last shard move was done ("" and null when
// not reached), the moves planned and done, the rows copied and their CPU.
type RebalanceSummary struct {
	Start      string   `json:"start"`
	Done       string   `json:"done"`
	StartS     *float64 `json:"start_s"`
	DoneS      *float64 `json:"done_s"`
	Moves      int      `json:"moves"`
	MovesDone  int      `json:"moves_done"`
	RowsCopied int64    `json:"rows_copied"`
	CopyCPUS   float64  `json:"copy_cpu_s"`
	// Rate is the rows per second each copy ran at (rebalance.rate, or what max_cpu
	// allows).
	Rate float64 `json:"rate"`
}

func rebalanceOf(sc *metrics.Scenario, m *metrics.Run) *RebalanceSummary {
	b := m.Rebalance
	if b == nil {
		return nil
	}
	at := func(s *float64) string {
		if s == nil {
			return ""
		}
		return units.Clock(sc.Start, secondsTime(*s), units.TimeOfDay)
	}
	return &RebalanceSummary{Start: at(b.Start), Done: at(b.Done), StartS: optRound(b.Start, 6), DoneS: optRound(b.Done, 6),
		Moves: b.Moves, MovesDone: b.MovesDone, RowsCopied: b.RowsCopied, CopyCPUS: units.Round(b.CopyCPU, 3), Rate: units.Round(b.Rate, 3)}
}

// rebalanceLine words a rebalance for the reports.
func rebalanceLine(b *RebalanceSummary) string {
	if b.Start == "" {
		return "not started: the run ended first"
	}
	done := "not all done by the end of the run"
	if b.Done != "" {
		done = "done " + b.Done
	}
	return fmt.Sprintf("nodes joined %s; %d of %d shard moves done (%s), %s rows copied at %s rows/s, %s core-s of CPU",
		b.Start, b.MovesDone, b.Moves, done, units.Count(b.RowsCopied), units.Count(int64(math.Round(b.Rate))), num(b.CopyCPUS))
}

// rebalanceText writes a variant's rebalance for the text report.
func rebalanceText(w io.Writer, v *VariantSummary) {
	if v.Rebalance != nil {
		fmt.Fprintf(w, "\n   rebalance: %s\n", rebalanceLine(v.Rebalance))
	}
}

// rebalanceMarkdown is rebalanceText for the Markdown report.
func rebalanceMarkdown(w io.Writer, v *VariantSummary) {
	if v.Rebalance != nil {
		fmt.Fprintf(w, "\nRebalance: %s.\n", md(rebalanceLine(v.Rebalance)))
	}
}
