package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// ExplainJSON is the JSON form of `shardsim explain`.
type ExplainJSON struct {
	Scenario string           `json:"scenario"`
	Variants []ExplainVariant `json:"variants"`
}

// ExplainVariant is one variant's predicted routing and load.
type ExplainVariant struct {
	Name    string          `json:"name"`
	Key     string          `json:"key"`
	Nodes   [][]int         `json:"shards_per_node"`
	Streams []ExplainStream `json:"streams"`
	Shards  []ExplainLoad   `json:"shards"`
	NodeUse []ExplainNode   `json:"nodes"`
	Notes   []string        `json:"notes"`
	// Warnings name each node predicted past its cores or past the ceiling capacity and
	// sweep hold to (metrics.DefaultCeiling), with the stream that offers the most work
	// (diagnose.Sanity), and each node that holds two or more shards predicted to make it
	// hot at peak (the rule of the run's placement diagnosis, applied to the predicted peaks).
	Warnings []string `json:"warnings"`
}

// ExplainStream is one stream's fan-out and rates.
type ExplainStream struct {
	Name        string  `json:"name"`
	Op          string  `json:"op"`
	MeanRate    float64 `json:"mean_rate"`
	PeakRate    float64 `json:"peak_rate"`
	PeakAt      string  `json:"peak_at"`   // clock time of the instant whose window gives the peak's routing
	PeakAtS     float64 `json:"peak_at_s"` // the same in seconds from the start of the run
	Subrequests float64 `json:"subrequests"`
	MaxSubreq   int     `json:"max_subrequests"`
	Partitions  float64 `json:"partitions"`
}

// ExplainLoad is an offered load as a fraction of the node's cores.
type ExplainLoad struct {
	ID   int     `json:"id"`
	Node int     `json:"node"`
	Mean float64 `json:"mean"`
	Peak float64 `json:"peak"` // the highest at any instant of the run (metrics.OfferedLoad)
	// PeakAt is the clock time of the instant at which Peak is offered; absent when
	// nothing is.
	PeakAt string `json:"peak_at,omitempty"`
}

// ExplainNode is a node's offered load as a fraction of its cores, and the shards it holds
// (their leaders; followers are not listed) in increasing order.
type ExplainNode struct {
	ExplainLoad
	Cores  int   `json:"cores"`
	Shards []int `json:"shards"`
}

// Explain converts the variants' predictions (metrics.Variant.Prediction) to their JSON
// form, with diagnose's notes and warnings on them (diagnose.Predicted).
func Explain(sc *metrics.Scenario) *ExplainJSON {
	out := &ExplainJSON{Scenario: sc.Name}
	for i := range sc.Variants {
		ex := sc.Variants[i].Prediction
		if ex == nil {
			continue
		}
		notes, warnings := diagnose.Predicted(ex)
		warnings = append(diagnose.Sanity(ex, metrics.DefaultCeiling), warnings...)
		v := ExplainVariant{Name: sc.Variants[i].Name, Key: ex.Key, Nodes: ex.NodeShard, Notes: append(append([]string{}, ex.Notes...), notes...), Warnings: append([]string{}, warnings...)}
		for _, st := range ex.Streams {
			v.Streams = append(v.Streams, ExplainStream{
				Name: st.Name, Op: st.Op.String(), MeanRate: units.Round(st.MeanRate, 3), PeakRate: units.Round(st.PeakRate, 3),
				PeakAt: units.Clock(sc.Start, st.PeakAt, units.TimeOfDay), PeakAtS: units.Round(st.PeakAt.Seconds(), 6),
				Subrequests: units.Round(st.Subrequests, 3), MaxSubreq: st.MaxSubrequest, Partitions: units.Round(st.Partitions, 3),
			})
		}
		for _, l := range ex.Shards {
			v.Shards = append(v.Shards, ExplainLoad{ID: l.ID, Node: l.Node, Mean: metrics.Util(l.Mean), Peak: metrics.Util(l.Peak), PeakAt: peakAt(sc, l)})
		}
		for _, l := range ex.Nodes {
			v.NodeUse = append(v.NodeUse, ExplainNode{ExplainLoad: ExplainLoad{ID: l.ID, Node: l.ID, Mean: metrics.Util(l.Mean), Peak: metrics.Util(l.Peak), PeakAt: peakAt(sc, l)},
				Cores: l.Cores, Shards: diagnose.ShardsOf(ex, l.ID)})
		}
		out.Variants = append(out.Variants, v)
	}
	return out
}

// peakAt is the clock time at which l's peak is offered, "" when nothing is.
func peakAt(sc *metrics.Scenario, l metrics.OfferedLoad) string {
	if l.Peak <= 0 {
		return ""
	}
	return units.Clock(sc.Start, l.PeakAt, units.TimeOfDay)
}

func shardsPerNode(nodes [][]int) string {
	lo, hi := len(nodes[0]), len(nodes[0])
	for _, n := range nodes {
		lo, hi = min(lo, len(n)), max(hi, len(n))
	}
	if lo == hi {
		return fmt.Sprintf("%d shard(s) per node", lo)
	}
	return fmt.Sprintf("%d to %d shards per node", lo, hi)
}

func fmtRate(r float64) string {
	if r >= 100 || r == float64(int64(r)) {
		return strconv.FormatFloat(r, 'f', 0, 64) + "/s"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "/s"
}

// ExplainText writes the explanation as text: per variant the streams' fan-out, the
// hottest shards and nodes by offered load (a node with its cores and shards), the notes
// and the warnings.
func ExplainText(w io.Writer, e *ExplainJSON) {
	fmt.Fprintf(w, "scenario %s: offered load by the utilization law (rate x cost x partitions / cores), before any simulation\n", e.Scenario)
	for _, v := range e.Variants {
		fmt.Fprintf(w, "\n== %s\n   %s; %s\n\n", v.Name, v.Key, shardsPerNode(v.Nodes))
		t := &table{head: []string{"stream", "op", "mean rate", "peak rate", "peak at", "subrequests", "max", "partitions"}, left: 2}
		for _, s := range v.Streams {
			t.add(s.Name, s.Op, fmtRate(s.MeanRate), fmtRate(s.PeakRate), s.PeakAt, strconv.FormatFloat(s.Subrequests, 'f', 1, 64),
				strconv.Itoa(s.MaxSubreq), strconv.FormatFloat(s.Partitions, 'f', 1, 64))
		}
		t.text(w, "   ")
		fmt.Fprintln(w)
		loadTable(v.Shards, "shard", 5).text(w, "   ")
		means := make([]float64, len(v.Shards))
		for i, l := range v.Shards {
			means[i] = l.Mean
		}
		fmt.Fprintf(w, "   (%d shards; median mean load %s)\n\n", len(v.Shards), units.Percent(metrics.Median(means), 1))
		nodeTable(v.NodeUse, v.Shards, 5).text(w, "   ")
		for _, n := range v.Notes {
			fmt.Fprintf(w, "   ! %s\n", n)
		}
		for _, n := range v.Warnings {
			fmt.Fprintf(w, "   warning: %s\n", n)
		}
	}
}

// nodeShardsShown is how many of a node's shards its row in the text lists.
const nodeShardsShown = 6

// nodeTable lists the n nodes with the highest peak loads, each with its cores and its
// shards, the hottest at peak first.
func nodeTable(nodes []ExplainNode, shards []ExplainLoad, n int) *table {
	s := slices.Clone(nodes)
	slices.SortStableFunc(s, func(a, b ExplainNode) int { return cmp.Compare(b.Peak, a.Peak) })
	peak := func(id int) float64 {
		if id >= 0 && id < len(shards) {
			return shards[id].Peak
		}
		return 0
	}
	t := &table{head: []string{"node", "cores", "mean load", "peak load", "at", "shards (hottest first, peak load)"}, lastLeft: true}
	for _, l := range s[:min(n, len(s))] {
		ids := slices.Clone(l.Shards)
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(peak(b), peak(a)) })
		var parts []string
		for _, id := range ids[:min(nodeShardsShown, len(ids))] {
			parts = append(parts, fmt.Sprintf("%d (%s)", id, units.Percent(peak(id), 1)))
		}
		if len(ids) > nodeShardsShown {
			parts = append(parts, fmt.Sprintf("+%d more", len(ids)-nodeShardsShown))
		}
		mark := ""
		if l.Peak > 1 {
			mark = " OVER"
		}
		t.add(strconv.Itoa(l.ID), strconv.Itoa(l.Cores), units.Percent(l.Mean, 1), units.Percent(l.Peak, 1)+mark, cmp.Or(l.PeakAt, "-"), strings.Join(parts, ", "))
	}
	return t
}

// loadTable lists the n highest peak loads, each with the time it is offered: the highest
// load at any instant of the run, not the load at the streams' peak (with a time-bucketed
// key a shard may be hottest at the end of its hour).
func loadTable(loads []ExplainLoad, what string, n int) *table {
	s := slices.Clone(loads)
	slices.SortStableFunc(s, func(a, b ExplainLoad) int { return cmp.Compare(b.Peak, a.Peak) })
	t := &table{head: []string{what, "node", "mean load", "peak load", "at"}}
	for _, l := range s[:min(n, len(s))] {
		row := []string{strconv.Itoa(l.ID), strconv.Itoa(l.Node)}
		mark := ""
		if l.Peak > 1 {
			mark = " OVER"
		}
		t.add(append(row, units.Percent(l.Mean, 1), units.Percent(l.Peak, 1)+mark, cmp.Or(l.PeakAt, "-"))...)
	}
	return t
}

// ExplainMarkdown writes the explanation as Markdown.
func ExplainMarkdown(w io.Writer, e *ExplainJSON) {
	var b strings.Builder
	ExplainText(&b, e)
	// The text goes in a code block, where nothing is markup; its fence is longer than any
	// run of backticks in it, so that no name can close it.
	fence := "```"
	for strings.Contains(b.String(), fence) {
		fence += "`"
	}
	fmt.Fprintf(w, "# explain %s\n\n%s\n%s%s\n", md(e.Scenario), fence, b.String(), fence)
}
