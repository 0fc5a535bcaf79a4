package report

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// report.html is one self-contained page: the data of the run as one JSON blob, uPlot (the
// time charts) and a small script of ours (the heat maps, on a canvas, since uPlot draws no
// heat map) all inlined, so the file opens offline and fetches nothing. Every figure in the
// blob comes from metrics or the sim.Result accessors the CSV files read; the script only
// formats them, and bins them further when the reader zooms out.

//go:embed html/uplot/uPlot.iife.min.js
var uplotJS string

//go:embed html/uplot/uPlot.min.css
var uplotCSS string

//go:embed html/uplot/LICENSE
var uplotLicense string

//go:embed html/app.js
var appJS string

//go:embed html/style.css
var appCSS string

//go:embed html/page.html
var pageHTML string

// uplotVersion is the vendored uPlot's version (report/html/uplot/README.md).
const uplotVersion = "1.6.32"

// The most cells of every variant's heat map together, and the most points of one time
// series, before windows are merged into bins for the page. Above them the page would grow
// past a few megabytes without showing more: a heat map a thousand bins wide already has a
// bin per pixel or less. No built-in scenario comes near (black-friday: 5 variants x 12
// shards x 180 windows = 10,800 cells).
const (
	htmlMaxCells  = 400_000
	htmlMaxPoints = 2_000
)

// HTMLFile is the name of the HTML report in the output directory.
const HTMLFile = "report.html"

// WriteHTML writes report.html into dir (which must exist) and returns its path. downloads
// names the files beside it that the page links to.
func WriteHTML(dir string, sc *metrics.Scenario, runs []Run, sum *Summary, downloads []string) (string, error) {
	p := filepath.Join(dir, HTMLFile)
	return p, atomicfile.WriteWith(p, func(w io.Writer) error { return HTML(w, sc, runs, sum, downloads) })
}

// htmlData is the JSON blob the page's script reads. Times are seconds from the start of
// the run; loads fractions of a node's cores; rates per second; latencies milliseconds. A
// null is a bin with no value (nothing completed, or after a run stopped).
type htmlData struct {
	Scenario   string    `json:"scenario"`
	StartS     float64   `json:"start_s"` // the clock time of t = 0, in seconds after midnight
	WindowS    float64   `json:"window_s"`
	BinS       float64   `json:"bin_s"` // the width of one bin: Bin windows
	Bin        int       `json:"bin"`
	ChartBinS  float64   `json:"chart_bin_s"` // the same for the time charts
	ChartBin   int       `json:"chart_bin"`
	DurationS  float64   `json:"duration_s"`
	WarmupS    float64   `json:"warmup_s"`
	Times      []float64 `json:"times"`       // each heat bin's start
	ChartTimes []float64 `json:"chart_times"` // each time-chart bin's start
	MaxOps     int64     `json:"max_ops"`     // the most subrequests one shard served in one bin, over every variant
	// FineTimes are the starts of the detail range's fine windows (FineS wide), absent
	// without a detail range; each stream's FineP99 follows them.
	FineTimes []float64     `json:"fine_times,omitempty"`
	FineS     float64       `json:"fine_s,omitempty"`
	Variants  []htmlVariant `json:"variants"`
	// Palette is the variants' colours, variant i's at i modulo its length: the PNG
	// charts' (plots.Palette), so that a variant looks the same in both.
	Palette []string `json:"palette"`
}

type htmlVariant struct {
	Name     string           `json:"name"`
	KeyOrder bool             `json:"key_order"` // rows are in key order (range scheme); else by shard id
	Rows     []metrics.BinRow `json:"rows"`
	TimeOps  []int64          `json:"time_ops"` // subrequests served per heat bin, all shards
	Streams  []htmlStream     `json:"streams"`
	Nodes    []htmlNode       `json:"nodes"`
	Markers  []htmlMarker     `json:"markers"`
}

type htmlStream struct {
	Name      string     `json:"name"`
	Op        string     `json:"op"`
	SLO       []float64  `json:"slo"`
	Offered   []*float64 `json:"offered"`
	Completed []*float64 `json:"completed"`
	Failed    []*float64 `json:"failed"`
	P99       []*float64 `json:"p99"`
	// Retries is the rate of retried attempts, absent when the stream sent none;
	// RetryLabel what the scenario calls them (retry_label).
	Retries    []*float64 `json:"retries,omitempty"`
	RetryLabel string     `json:"retry_label,omitempty"`
	// FineP99 is the p99 in each fine window of the detail range (metrics.FineWindowsOf),
	// absent without one.
	FineP99 []*float64 `json:"fine_p99,omitempty"`
}

type htmlNode struct {
	ID    int        `json:"id"`
	Cores int        `json:"cores"`
	Load  []*float64 `json:"load"`
}

// htmlMarker is an alert or an event, drawn on every time chart of its variant.
type htmlMarker struct {
	T    float64 `json:"t"`
	At   string  `json:"at"`
	Kind string  `json:"kind"`
	Text string  `json:"text"`
}

// binsOf returns how many windows make one bin so that n bins of cells each stay within
// most (at least 1).
func binsOf(windows, cellsPerWindow, most int) int {
	if windows == 0 || cellsPerWindow == 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64(windows)*float64(cellsPerWindow)/float64(most))))
}

// keyOrder returns the shards in the order of their keys under the range scheme: the
// initial shards are in key order, and a split's child takes the upper half of its parent's
// range, so it goes right after its parent (ahead of the parent's earlier children, whose
// ranges are higher still). Under other schemes the order is the shards' ids.
func keyOrder(r *sim.Result, scheme keyspace.SchemeKind) ([]int, bool) {
	ordered := scheme.Ordered()
	order := make([]int, 0, len(r.Shards))
	for s := range r.Shards {
		if !ordered || r.Shards[s].Parent < 0 {
			order = append(order, s)
		}
	}
	if !ordered {
		return order, false
	}
	for s := range r.Shards { // children come after their parents in id order
		if p := r.Shards[s].Parent; p >= 0 {
			for i, x := range order {
				if x == p {
					order = append(order[:i+1], append([]int{s}, order[i+1:]...)...)
					break
				}
			}
		}
	}
	return order, true
}

func buildHTMLData(sc *metrics.Scenario, runs []Run, sum *Summary) *htmlData {
	d := &htmlData{Palette: plots.Palette(), Scenario: sc.Name, StartS: sc.Start.Seconds(), WindowS: sc.Window.Seconds(),
		DurationS: sc.Duration.Seconds(), WarmupS: sc.Warmup.Seconds()}
	windows, cells, col := 0, 0, 1
	for _, run := range runs {
		windows = max(windows, run.Result.Windows)
		if g := metrics.DigestOf(run.Result); g != nil {
			// A streamed run's rows are its heat map's (metrics.Heat), whose columns
			// merge ColWindows windows: a bin is a whole number of them.
			cells += g.Heat.Rows
			col = max(col, g.Heat.ColWindows)
		} else {
			cells += len(run.Result.Shards)
		}
	}
	d.Bin = binsOf(windows, cells, htmlMaxCells)
	d.Bin = (d.Bin + col - 1) / col * col
	d.ChartBin = binsOf(windows, 1, htmlMaxPoints)
	d.BinS, d.ChartBinS = float64(d.Bin)*d.WindowS, float64(d.ChartBin)*d.WindowS
	for b := 0; b*d.Bin < windows; b++ {
		d.Times = append(d.Times, units.Round(float64(b)*d.BinS, 6))
	}
	for b := 0; b*d.ChartBin < windows; b++ {
		d.ChartTimes = append(d.ChartTimes, units.Round(float64(b)*d.ChartBinS, 6))
	}
	if hasDetail(runs) {
		det := runs[0].Result.Detail
		d.FineS = units.Round(det.Window.Seconds(), 6)
		for k := range det.FineWindows() {
			d.FineTimes = append(d.FineTimes, units.Round(det.FineStart(k).Seconds(), 6))
		}
	}
	for i, run := range runs {
		v := htmlVariantOf(sc, run, &sum.Variants[i], d.Bin, d.ChartBin, len(d.Times), len(d.ChartTimes))
		for _, row := range v.Rows {
			for _, o := range row.Ops {
				d.MaxOps = max(d.MaxOps, o)
			}
		}
		d.Variants = append(d.Variants, v)
	}
	return d
}

// htmlVariantOf is one variant's part of the blob. Windows are merged bin at a time: a
// bin's load is the mean of its windows' loads (windows the run did not reach left out),
// its ops the sum, its queue the longest; a time-chart bin's rates are means, its p99 the
// largest of its windows' (a merged quantile would need the histograms, and the largest
// hides no climb).
func htmlVariantOf(sc *metrics.Scenario, run Run, vs *VariantSummary, bin, cbin, nb, ncb int) htmlVariant {
	r := run.Result
	bn := &metrics.Bins{R: r, Bin: bin, ChartBin: cbin, N: nb, ChartN: ncb}
	order, inKey := keyOrder(r, run.Variant.Scheme)
	v := htmlVariant{Name: run.Variant.Name, KeyOrder: inKey, TimeOps: make([]int64, nb), Markers: []htmlMarker{}}
	if g := metrics.DigestOf(r); g != nil {
		order = nil // its rows are groups of shards, from the digest's heat map
		v.Rows = bn.HeatRows(&g.Heat)
	}
	for _, s := range order {
		v.Rows = append(v.Rows, bn.ShardRow(s))
	}
	for _, row := range v.Rows {
		for b, o := range row.Ops {
			v.TimeOps[b] += o
		}
	}
	for i := range r.Streams {
		v.Streams = append(v.Streams, htmlStreamOf(bn, i, run.Variant.Stream(i)))
	}
	for _, n := range htmlNodes(r) {
		v.Nodes = append(v.Nodes, htmlNode{ID: n, Cores: r.Nodes[n].Cores, Load: bn.NodeLoad(n)})
	}
	for _, e := range timeline(vs) {
		text := e.message
		if e.detection != "" {
			text += " (" + e.detection + ")"
		}
		v.Markers = append(v.Markers, htmlMarker{T: e.atS, At: e.at, Kind: e.kind, Text: text})
	}
	return v
}

// htmlTable is a table of the page: text cells, the first Left columns words.
type htmlTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	Left    int
}

func htmlTableOf(caption string, t *table) htmlTable {
	return htmlTable{Caption: caption, Head: t.head, Rows: t.rows, Left: t.left}
}

// introText says what the run covered: its span, start and seed, and its warmup (none
// said as none, not as "the first 0s").
func introText(sum *Summary) string {
	warmup := "no warmup: every request counts in the run's latency figures"
	if sum.WarmupS > 0 {
		warmup = fmt.Sprintf("the first %s are warmup and left out of the run's latency figures", units.Seconds(sum.WarmupS, units.Flag))
	}
	return fmt.Sprintf("Simulated %s from %s (seed %d); %s. "+
		"Loads are CPU time spent on a shard's requests as a share of its node's cores; latencies are measured at the client, network and queueing included.",
		units.Seconds(sum.DurationS, units.Flag), sum.Start, sum.Seed, warmup)
}

// diagnosisSentence makes a diagnosis message a sentence: a capital first letter, unless
// it starts with an identifier whose case is its own (a field=value, a stream's name, a
// name with an underscore or a digit), and a full stop.
func diagnosisSentence(msg string, v *VariantSummary) string {
	first, _, _ := strings.Cut(msg, " ")
	if strings.ContainsAny(first, "=_.:()[]0123456789") {
		return msg + "."
	}
	for _, s := range v.Streams {
		if first == s.Name || strings.HasPrefix(first, s.Name+"'") {
			return msg + "."
		}
	}
	return capitalize(msg) + "."
}

// glanceStreams is how many streams get a p99 column of their own in the variants' table;
// the worst p99 of any others shares one column.
const glanceStreams = 6

// glanceTable is "The variants at a glance": a row per variant with its totals, the p99 of
// each stream (the streams of all variants, in the order they first appear; one worst p99
// would be the slowest stream's in every variant, often a rare scan that hides how the
// designs differ), with the share of the stream's requests that failed beside a p99 that
// leaves them out, and its hottest shard and node.
func glanceTable(sum *Summary) *table {
	var names []string
	for _, v := range sum.Variants {
		for _, s := range v.Streams {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	shown := names[:min(len(names), glanceStreams)]
	head := []string{"variant", "offered", "failed", "error rate"}
	for _, n := range shown {
		head = append(head, n+" p99 ms")
	}
	if len(names) > len(shown) {
		head = append(head, "others' worst p99 ms")
	}
	// The shard hottest over the run and the shard hottest in the busiest window are often
	// two shards (black-friday's after: 5 over the run, 2 at 07:59): each load says whose.
	// The load leads its cell, so that the column sorts by it; one cell each keeps the
	// table within the page.
	head = append(head, "hottest shard's load over the run", "hottest shard's load in the busiest window", "hottest node load")
	glance := &table{head: head, left: 1}
	for i := range sum.Variants {
		v := &sum.Variants[i]
		var offered, failed int64
		p99 := make([]string, len(shown))
		for j := range p99 {
			p99[j] = "-"
		}
		var worst *float64
		for _, s := range v.Streams {
			offered += s.Offered
			failed += s.Failed
			if j := slices.Index(shown, s.Name); j >= 0 {
				p99[j] = fmtOptMs(s.Latency.P99) + failedWords(s.Failed, s.Offered)
			} else if s.Latency.P99 != nil && (worst == nil || *s.Latency.P99 > *worst) {
				worst = s.Latency.P99
			}
		}
		row := append([]string{v.Name, units.Count(offered), units.Count(failed), units.ShareOf(failed, offered, 1)}, p99...)
		if len(names) > len(shown) {
			row = append(row, fmtOptMs(worst))
		}
		row = append(row, fmt.Sprintf("%s (shard %s)", units.Percent(v.Skew.HottestLoad, 1), v.shardName(v.Skew.HottestShard)),
			fmt.Sprintf("%s (shard %s, %s)", units.Percent(v.Skew.PeakHottestLoad, 1), v.shardName(v.Skew.PeakHottestShard), v.Skew.PeakWindow), units.Percent(v.HottestNode.Utilization, 1))
		glance.add(row...)
	}
	return glance
}

// htmlStory is one variant's story: its description, diagnosis and timeline.
type htmlStory struct {
	Name, Description, Key string
	Color                  template.CSS // the variant's colour (plots.Palette), a CSS hex colour
	Diagnosis              []string
	Events, More           []htmlEvent // the first storyEvents, and the rest (folded)
	Stop                   string
}

// variantColor is variant i's colour in the page: the one its lines have in the PNG
// charts. (A fixed hex colour of plots.Palette, so safe as CSS.)
func variantColor(i int) template.CSS {
	p := plots.Palette()
	return template.CSS(p[i%len(p)])
}

// storyEvents is how many of a variant's alerts and events the story shows before folding
// the rest: a run of splits can make a hundred.
const storyEvents = 12

type htmlEvent struct{ At, What, Text, Detection string }

// kindWords names an alert or event kind for a reader.
func kindWords(kind string) string {
	switch kind {
	case "node_cpu":
		return "CPU alert"
	case "node_cpu_cleared":
		return "CPU alert cleared"
	case "hot_shard":
		return "hot-shard alert"
	case "hot_shard_cleared":
		return "hot-shard alert cleared"
	case "latency":
		return "latency alert"
	case "errors":
		return "errors"
	case "throttled":
		return "throttling"
	case "timed_out":
		return "timeouts"
	case "saturated":
		return "run stopped"
	case "action":
		return "operator action"
	case "split":
		return "shard split"
	case "move":
		return "shard move"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// HTML writes report.html to w.
func HTML(w io.Writer, sc *metrics.Scenario, runs []Run, sum *Summary, downloads []string) error {
	if len(runs) != len(sum.Variants) {
		return fmt.Errorf("report.html: %d runs for %d variants", len(runs), len(sum.Variants))
	}
	blob, err := json.Marshal(buildHTMLData(sc, runs, sum))
	if err != nil {
		return err
	}
	page := struct {
		Title, Description, Intro string
		Stories                   []htmlStory
		Glance                    htmlTable
		Claims                    *htmlTable
		Tables                    []struct {
			Name   string
			Tables []htmlTable
		}
		Downloads                  []string
		Data                       template.JS
		UPlotJS, AppJS             template.JS
		UPlotCSS, AppCSS           template.CSS
		UPlotLicense, UPlotVersion string
		Partial                    bool
	}{
		Title: sum.Scenario, Description: strings.Join(strings.Fields(sum.Description), " "),
		Data: template.JS(blob), UPlotJS: template.JS(uplotJS), AppJS: template.JS(appJS),
		UPlotCSS: template.CSS(uplotCSS), AppCSS: template.CSS(appCSS),
		UPlotLicense: uplotLicense, UPlotVersion: uplotVersion, Downloads: downloads, Partial: sum.Partial,
	}
	page.Intro = introText(sum)
	glance := glanceTable(sum)
	for i := range sum.Variants {
		v := &sum.Variants[i]
		st := htmlStory{Name: v.Name, Description: strings.Join(strings.Fields(v.Description), " "), Key: v.Key, Color: variantColor(i), Stop: stopNote(v)}
		for _, dg := range v.Diagnosis {
			st.Diagnosis = append(st.Diagnosis, diagnosisSentence(dg.Message, v))
		}
		// Sibling alerts are merged even when nothing is folded: the story is read as a
		// sequence of moments, and four latency lines of one minute are one moment.
		shown, folded := foldTimeline(mergeSiblings(timeline(v)), storyEvents+4) // folding a few would save nothing
		if len(folded) > 0 {
			shown, folded = foldTimeline(mergeSiblings(timeline(v)), storyEvents)
		}
		for _, e := range shown {
			st.Events = append(st.Events, htmlEvent{At: e.at, What: kindWords(e.kind), Text: e.message, Detection: e.detection})
		}
		for _, e := range folded {
			st.More = append(st.More, htmlEvent{At: e.at, What: kindWords(e.kind), Text: e.message, Detection: e.detection})
		}
		page.Stories = append(page.Stories, st)

		tabs := struct {
			Name   string
			Tables []htmlTable
		}{Name: v.Name}
		streams := htmlTableOf("Streams", streamTable(v))
		if note := completedNote(v); note != "" {
			streams.Caption += ". " + capitalize(note)
		}
		tabs.Tables = append(tabs.Tables, streams)
		shards := &table{head: []string{"shard", "node", "load", "peak window load", "ops", "rows written"}, left: 0}
		for _, sh := range v.Shards {
			shards.add(v.shardName(sh.ID), strconv.Itoa(sh.Node), units.Percent(sh.Utilization, 1), units.Percent(sh.PeakUtilization, 1), units.Count(sh.Ops), units.Count(sh.Rows))
		}
		tabs.Tables = append(tabs.Tables, htmlTableOf("Shards", shards))
		nodes := &table{head: []string{"node", "cores", "load", "peak window load", "max queue"}, left: 0}
		for _, n := range v.Nodes {
			nodes.add(strconv.Itoa(n.ID), strconv.Itoa(n.Cores), units.Percent(n.Utilization, 1), units.Percent(n.PeakUtilization, 1), units.Count(int64(n.MaxQueue)))
		}
		tabs.Tables = append(tabs.Tables, htmlTableOf("Nodes", nodes))
		for _, sec := range detailSections(v) {
			if len(sec.t.rows) > 0 {
				tabs.Tables = append(tabs.Tables, htmlTableOf(capitalize(sec.title), sec.t))
			}
		}
		page.Tables = append(page.Tables, tabs)
	}
	page.Glance = htmlTableOf("The variants at a glance", glance)
	if len(sum.Claims) > 0 {
		ct := htmlTableOf("The story's claims", claimTable(sum.Claims))
		page.Claims = &ct
	}
	t, err := template.New("page").Funcs(template.FuncMap{
		"left": func(t htmlTable, i int) bool { return i < t.Left },
	}).Parse(pageHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, page)
}

// htmlStreamOf is stream i's time series, in time-chart bins, and its fine p99s.
func htmlStreamOf(bn *metrics.Bins, i int, info metrics.StreamInfo) htmlStream {
	r := bn.R
	st := htmlStream{Name: r.Streams[i].Name, Op: r.Streams[i].Op.String(), SLO: []float64{}, RetryLabel: info.RetryLabel}
	for _, t := range info.SLO {
		st.SLO = append(st.SLO, t.Millis())
	}
	st.Offered, st.Completed, st.Failed, st.P99, st.Retries = bn.StreamSeries(i)
	for _, fw := range metrics.FineWindowsOf(r, i) {
		st.FineP99 = append(st.FineP99, optRound(fw.P99, 3))
	}
	return st
}

// htmlMaxNodeLines bounds the node load chart's lines: a chart of thousands of lines shows
// nothing, and their points would take most of the page.
const htmlMaxNodeLines = 200

// htmlNodes returns the nodes whose load the page charts, in id order: every node, or
// the htmlMaxNodeLines with the highest peak window load (the lower id on ties).
func htmlNodes(r *sim.Result) []int {
	ids := make([]int, len(r.Nodes))
	for n := range ids {
		ids[n] = n
	}
	if len(ids) <= htmlMaxNodeLines {
		return ids
	}
	peak := make([]float64, len(ids))
	for n := range peak {
		for w := range r.Windows {
			peak[n] = max(peak[n], r.NodeUtilization(w, n))
		}
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(peak[b], peak[a]) })
	ids = ids[:htmlMaxNodeLines]
	slices.Sort(ids)
	return ids
}
