package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// htmlBlob returns the JSON data of a report.html page, decoded.
func htmlBlob(t *testing.T, page string) *htmlData {
	t.Helper()
	const open = `<script type="application/json" id="data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("report.html has no data blob")
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatal("report.html: the data blob is not closed")
	}
	var d htmlData
	if err := json.Unmarshal([]byte(rest[:j]), &d); err != nil {
		t.Fatalf("report.html: the data blob does not parse: %v", err)
	}
	return &d
}

// TestHTMLReport writes the report of quickstart's three variants, shortened to 2 minutes
// (4 windows of 30 s), and checks the page: the blob parses and holds every variant, shard,
// stream and node; its figures are the ones the CSV files and metrics give, cell by cell;
// the story, the tables and the downloads name every variant and file; nothing in it would
// be fetched over the network; and it is far under the 5 MB the built-ins must stay under.
func TestHTMLReport(t *testing.T) {
	sc, runs := runShared(t, "quickstart", `duration="2m"`)
	sum := Summarize(sc, runs)
	var buf bytes.Buffer
	downloads := []string{"summary.json", "streams.csv", "report.md"}
	if err := HTML(&buf, sc, runs, sum, downloads); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if len(page) > 5<<20 {
		t.Errorf("report.html is %d bytes, want under 5 MB", len(page))
	}
	d := htmlBlob(t, page)
	r0 := runs[0].Result
	if d.Bin != 1 || d.ChartBin != 1 || len(d.Times) != r0.Windows || len(d.ChartTimes) != r0.Windows || d.WindowS != 30 || d.StartS != 9*3600 {
		t.Fatalf("blob: bin %d, chart bin %d, %d and %d times, window %vs, start %vs; want one window per bin, %d windows of 30 s from 09:00",
			d.Bin, d.ChartBin, len(d.Times), len(d.ChartTimes), d.WindowS, d.StartS, r0.Windows)
	}
	if len(d.Variants) != len(runs) {
		t.Fatalf("%d variants in the blob, want %d", len(d.Variants), len(runs))
	}
	var maxOps int64
	for vi, run := range runs {
		v, r := &d.Variants[vi], run.Result
		if v.Name != run.Variant.Name || len(v.Rows) != len(r.Shards) || len(v.Streams) != len(r.Streams) || len(v.Nodes) != len(r.Nodes) {
			t.Fatalf("variant %d: %q with %d rows, %d streams, %d nodes; want %q with %d, %d, %d",
				vi, v.Name, len(v.Rows), len(v.Streams), len(v.Nodes), run.Variant.Name, len(r.Shards), len(r.Streams), len(r.Nodes))
		}
		if v.KeyOrder {
			t.Errorf("%s: hash-sharded, but the rows claim key order", v.Name)
		}
		for ri, row := range v.Rows {
			s := row.Shard
			if s != ri || row.Node != r.Shards[s].Node || row.RunLoad != sum.Variants[vi].Shards[s].Utilization {
				t.Errorf("%s: row %d is shard %d on node %d (run load %v); want shard %d on node %d (%v)", v.Name, ri, s, row.Node, row.RunLoad, ri, r.Shards[ri].Node, sum.Variants[vi].Shards[ri].Utilization)
			}
			for w := 0; w < r.Windows; w++ {
				i := w*len(r.Shards) + s
				if row.Load[w] != metrics.Util(r.ShardUtilization(w, s)) || row.Ops[w] != r.ShardOps[i] || row.Queue[w] != r.ShardMaxQueue[i] {
					t.Fatalf("%s shard %d window %d: load %v, ops %d, queue %d; shards.csv has %v, %d, %d",
						v.Name, s, w, row.Load[w], row.Ops[w], row.Queue[w], metrics.Util(r.ShardUtilization(w, s)), r.ShardOps[i], r.ShardMaxQueue[i])
				}
				maxOps = max(maxOps, row.Ops[w])
			}
		}
		for si, st := range v.Streams {
			if st.Name != r.Streams[si].Name || len(st.SLO) != len(run.Variant.Streams[si].SLO) {
				t.Errorf("%s: stream %d is %q with %d SLO lines, want %q with %d", v.Name, si, st.Name, len(st.SLO), r.Streams[si].Name, len(run.Variant.Streams[si].SLO))
			}
			for w := 0; w < r.Windows; w++ {
				m := metrics.StreamWindowOf(r, si, w)
				same := func(got *float64, want *float64, digits int) bool {
					return (got == nil) == (want == nil) && (got == nil || *got == units.Round(*want, digits))
				}
				if !same(st.Offered[w], m.OfferedRate, 2) || !same(st.Completed[w], m.CompletedRate, 2) || !same(st.Failed[w], m.FailedRate, 2) || !same(st.P99[w], m.P99, 3) {
					t.Fatalf("%s %s window %d: offered %v, completed %v, failed %v, p99 %v differ from metrics %+v", v.Name, st.Name, w, st.Offered[w], st.Completed[w], st.Failed[w], st.P99[w], m)
				}
			}
		}
		if *v.Streams[0].Offered[1] < 7000 { // get_profile is offered at 8,000/s
			t.Errorf("%s: get_profile offered at %v/s in the second window, want about 8,000/s", v.Name, *v.Streams[0].Offered[1])
		}
		for ni, n := range v.Nodes {
			for w := 0; w < r.Windows; w++ {
				if *n.Load[w] != units.Round(r.NodeUtilization(w, ni), 4) {
					t.Fatalf("%s node %d window %d: load %v, nodes.csv has %v", v.Name, ni, w, *n.Load[w], r.NodeUtilization(w, ni))
				}
			}
		}
	}
	if d.MaxOps != maxOps || maxOps == 0 {
		t.Errorf("max_ops %d, want the largest cell %d", d.MaxOps, maxOps)
	}
	for _, v := range sum.Variants {
		if n := strings.Count(page, ">"+v.Name+"<"); n < 2 {
			t.Errorf("variant %q appears %d times as an element's text, want its story and its tables", v.Name, n)
		}
	}
	for _, f := range downloads {
		if !strings.Contains(page, `<a href="`+f+`" download>`) {
			t.Errorf("no download link to %s", f)
		}
	}
	// The variants at a glance: a p99 column per stream, each cell the summary's figure,
	// so that designs whose main stream differs tell apart even when a rare scan is the
	// slowest stream of every one (quickstart: get_profile's p99 falls from the first
	// variant to the last, while the scan's is about the same in all).
	g := glanceTable(sum)
	for vi, v := range sum.Variants {
		for _, st := range v.Streams {
			col := slices.Index(g.head, st.Name+" p99 ms")
			if col < 0 {
				t.Fatalf("the variants' table has no column %q: %v", st.Name+" p99 ms", g.head)
			}
			if got, want := g.rows[vi][col], fmtOptMs(st.Latency.P99); got != want {
				t.Errorf("%s: %s p99 %q in the variants' table, the summary has %q", v.Name, st.Name, got, want)
			}
			if !strings.Contains(page, "<th>"+st.Name+" p99 ms</th>") && !strings.Contains(page, ">"+st.Name+" p99 ms<") {
				t.Errorf("report.html shows no column %q", st.Name+" p99 ms")
			}
		}
	}
	if first, last := sum.Variants[0].Streams[0].Latency.P99, sum.Variants[len(sum.Variants)-1].Streams[0].Latency.P99; first == nil || last == nil || *last >= *first {
		t.Errorf("get_profile p99: %v in the first variant, %v in the last; want it lower in the last", first, last)
	}
	if !strings.Contains(page, "How to read these maps") || strings.Count(page, "How to read this chart") < 3 {
		t.Error("the page lacks its sentences on how to read the charts")
	}
	// Offline: no element loads anything, from the network or elsewhere (every script and
	// style is inline); a URL may only appear as text, such as uPlot's name in its header.
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|img|iframe|link|embed|object|source|audio|video)\b[^>]*\b(src|href|data)\s*=`),
		regexp.MustCompile(`(?i)url\(\s*['"]?\s*(https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)\b(href|src|action)\s*=\s*["']?\s*(https?:)?//`),
		regexp.MustCompile(`\bfetch\(|XMLHttpRequest|\bimport\(`),
	} {
		if m := re.FindString(page); m != "" {
			t.Errorf("report.html would load a resource: %q", m)
		}
	}
}

// TestHTMLSentences: a diagnosis that starts with an identifier keeps its case (a
// field=value, a stream's name), any other starts with a capital; a run without warmup
// says so instead of "the first 0s are warmup".
func TestHTMLSentences(t *testing.T) {
	v := &VariantSummary{Streams: []StreamSummary{{Name: "increment"}, {Name: "get"}}}
	for msg, want := range map[string]string{
		"user_id=764623 takes 22.4% of get's reads": "user_id=764623 takes 22.4% of get's reads.",
		"increment wrote only 1 distinct partition": "increment wrote only 1 distinct partition.",
		"get's p99 crossed 5ms":                     "get's p99 crossed 5ms.",
		"node 3 runs at 100.0% of its 1 core":       "Node 3 runs at 100.0% of its 1 core.",
		"the shards are co-located":                 "The shards are co-located.",
	} {
		if got := diagnosisSentence(msg, v); got != want {
			t.Errorf("diagnosisSentence(%q) = %q, want %q", msg, got, want)
		}
	}
	sum := &Summary{DurationS: 60, Start: "12:00", Seed: 1}
	if got := introText(sum); !strings.Contains(got, "no warmup: every request counts") || strings.Contains(got, "first 0s") {
		t.Errorf("intro without warmup: %q", got)
	}
	sum.WarmupS = 30
	if got := introText(sum); !strings.Contains(got, "the first 30s are warmup") {
		t.Errorf("intro with a 30 s warmup: %q", got)
	}
}

// The rows of a range-sharded heat map are in key order: a split's child owns the upper part
// of its parent's range, so it comes right after the parent, ahead of the parent's earlier
// children. Shards 0..2 are initial; 3 and then 4 split from 1; 5 from 3. Key order:
// 0, 1, 4, 3, 5, 2. Under hash sharding the order is the ids.
func TestHTMLKeyOrder(t *testing.T) {
	r := &sim.Result{Shards: []sim.ShardResult{{Parent: -1}, {Parent: -1}, {Parent: -1}, {Parent: 1}, {Parent: 1}, {Parent: 3}}}
	if got, inKey := keyOrder(r, "range"); !slices.Equal(got, []int{0, 1, 4, 3, 5, 2}) || !inKey {
		t.Errorf("range: rows %v (key order %v), want [0 1 4 3 5 2]", got, inKey)
	}
	if got, inKey := keyOrder(r, "hash"); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) || inKey {
		t.Errorf("hash: rows %v (key order %v), want the ids", got, inKey)
	}
}

// Windows merge into bins only past the page's budget: black-friday's 5 variants x 12
// shards x 180 windows stay one window per bin; 10,000 windows of 100 shards (a million
// cells) take 3 windows per bin to stay within 400,000 cells.
func TestHTMLBins(t *testing.T) {
	for _, c := range []struct{ windows, cells, most, want int }{
		{180, 60, htmlMaxCells, 1},
		{10_000, 100, htmlMaxCells, 3},
		{10_000, 1, htmlMaxPoints, 5},
		{0, 10, htmlMaxCells, 1},
	} {
		if got := binsOf(c.windows, c.cells, c.most); got != c.want {
			t.Errorf("binsOf(%d windows, %d cells each, %d) = %d, want %d", c.windows, c.cells, c.most, got, c.want)
		}
	}
}
