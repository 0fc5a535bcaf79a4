package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/build"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
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
	NodeUse []ExplainLoad   `json:"nodes"`
	Notes   []string        `json:"notes"`
}

// ExplainStream is one stream's fan-out and rates.
type ExplainStream struct {
	Name        string  `json:"name"`
	Op          string  `json:"op"`
	MeanRate    float64 `json:"mean_rate"`
	PeakRate    float64 `json:"peak_rate"`
	Subrequests float64 `json:"subrequests"`
	MaxSubreq   int     `json:"max_subrequests"`
	Partitions  float64 `json:"partitions"`
}

// ExplainLoad is an offered load as a fraction of the node's cores.
type ExplainLoad struct {
	ID   int     `json:"id"`
	Node int     `json:"node"`
	Mean float64 `json:"mean"`
	Peak float64 `json:"peak"`
}

// Explain converts explanations to their JSON form, with notes: a write stream whose
// partitions land at least 99% on one shard, and every shard or node predicted over 100%.
func Explain(sc *spec.Scenario, exs []*build.Explanation) *ExplainJSON {
	out := &ExplainJSON{Scenario: sc.Name}
	for _, ex := range exs {
		v := ExplainVariant{Name: ex.Variant, Key: ex.Key, Nodes: ex.NodeShard, Notes: append([]string{}, ex.Notes...)}
		for _, st := range ex.Streams {
			v.Streams = append(v.Streams, ExplainStream{
				Name: st.Name, Op: st.Op.String(), MeanRate: round(st.MeanRate, 3), PeakRate: round(st.PeakRate, 3),
				Subrequests: round(st.Subrequests, 3), MaxSubreq: st.MaxSubrequest, Partitions: round(st.Partitions, 3),
			})
			if st.Op == sim.Write && st.Partitions > 0 {
				for sh, p := range st.Shares {
					if p/st.Partitions >= 0.99 {
						v.Notes = append(v.Notes, fmt.Sprintf("stream %s: %.1f%% of its writes go to shard %d (node %d)",
							st.Name, 100*p/st.Partitions, sh, ex.Shards[sh].Node))
					}
				}
			}
		}
		for _, l := range ex.Shards {
			v.Shards = append(v.Shards, ExplainLoad{ID: l.ID, Node: l.Node, Mean: util(l.Mean), Peak: util(l.Peak)})
			if l.Peak > 1 {
				v.Notes = append(v.Notes, fmt.Sprintf("shard %d is offered %s of node %d's cores at peak: over capacity", l.ID, fmtPct(l.Peak), l.Node))
			}
		}
		for _, l := range ex.Nodes {
			v.NodeUse = append(v.NodeUse, ExplainLoad{ID: l.ID, Node: l.ID, Mean: util(l.Mean), Peak: util(l.Peak)})
			if l.Peak > 1 {
				v.Notes = append(v.Notes, fmt.Sprintf("node %d is offered %s of its %d cores at peak: over capacity", l.ID, fmtPct(l.Peak), l.Cores))
			}
		}
		out.Variants = append(out.Variants, v)
	}
	return out
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
// hottest shards and nodes by offered load, and the notes.
func ExplainText(w io.Writer, e *ExplainJSON) {
	fmt.Fprintf(w, "scenario %s: offered load by the utilization law (rate x cost x partitions / cores), before any simulation\n", e.Scenario)
	for _, v := range e.Variants {
		fmt.Fprintf(w, "\n== %s\n   %s; %s\n\n", v.Name, v.Key, shardsPerNode(v.Nodes))
		t := &table{head: []string{"stream", "op", "mean rate", "peak rate", "subrequests", "max", "partitions"}, left: 2}
		for _, s := range v.Streams {
			t.add(s.Name, s.Op, fmtRate(s.MeanRate), fmtRate(s.PeakRate), strconv.FormatFloat(s.Subrequests, 'f', 1, 64),
				strconv.Itoa(s.MaxSubreq), strconv.FormatFloat(s.Partitions, 'f', 1, 64))
		}
		t.text(w, "   ")
		fmt.Fprintln(w)
		loadTable(v.Shards, "shard", 5).text(w, "   ")
		means := make([]float64, len(v.Shards))
		for i, l := range v.Shards {
			means[i] = l.Mean
		}
		fmt.Fprintf(w, "   (%d shards; median mean load %s)\n\n", len(v.Shards), fmtPct(Median(means)))
		loadTable(v.NodeUse, "node", 5).text(w, "   ")
		for _, n := range v.Notes {
			fmt.Fprintf(w, "   ! %s\n", n)
		}
	}
}

// loadTable lists the n highest peak loads.
func loadTable(loads []ExplainLoad, what string, n int) *table {
	s := slices.Clone(loads)
	slices.SortStableFunc(s, func(a, b ExplainLoad) int { return cmp.Compare(b.Peak, a.Peak) })
	head := []string{what, "mean load", "peak load"}
	if what == "shard" {
		head = []string{what, "node", "mean load", "peak load"}
	}
	t := &table{head: head}
	for _, l := range s[:min(n, len(s))] {
		row := []string{strconv.Itoa(l.ID)}
		if what == "shard" {
			row = append(row, strconv.Itoa(l.Node))
		}
		mark := ""
		if l.Peak > 1 {
			mark = " OVER"
		}
		t.add(append(row, fmtPct(l.Mean), fmtPct(l.Peak)+mark)...)
	}
	return t
}

// ExplainMarkdown writes the explanation as Markdown.
func ExplainMarkdown(w io.Writer, e *ExplainJSON) {
	var b strings.Builder
	ExplainText(&b, e)
	fmt.Fprintf(w, "# explain %s\n\n```\n%s```\n", e.Scenario, b.String())
}
