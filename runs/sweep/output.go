package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/units"
)

// Sweep is a finished sweep: what was asked, and a row per point and variant.
type Sweep struct {
	Scenario string // its name, for titles
	Config   Config
	Rows     []Row
	// Random, when set, is the same sweep under placement = "random" (RunPlacement), row
	// for row: where a row's verdict differs there, placement binds it.
	Random []Row
	// replaced caches Config.replaced for the tables' and charts' names.
	replaced map[string][]string
	loaded   bool
}

// replacedKeys returns, per variant, the varied keys that replace its own values.
func (sw *Sweep) replacedKeys() map[string][]string {
	if !sw.loaded {
		sw.replaced, sw.loaded = sw.Config.replaced(), true
	}
	return sw.replaced
}

// SweepJSON is sweep.json.
type SweepJSON struct {
	Scenario     string   `json:"scenario"`
	Vary         []string `json:"vary"`
	Replications int      `json:"replications"`
	SLOs         []string `json:"slos,omitempty"`
	MaxErrors    *float64 `json:"max_errors,omitempty"`
	// MaxUtilization is the ceiling on the busiest node's load at peak judged with the
	// SLOs (1: none); absent without SLOs.
	MaxUtilization *float64  `json:"max_utilization,omitempty"`
	Rows           []jsonRow `json:"rows"`
	// Choice is the closing lines' decisions as data (with SLOs), one per variant and
	// value of every axis but the first.
	Choice []jsonChoice `json:"choice,omitempty"`
}

// jsonChoice is one CHOICE line as data: the key, the value chosen (null: none meets
// every SLO and the ceiling under both placements), why, and each placement's own
// choice where the placement check ran.
type jsonChoice struct {
	Group      string  `json:"group,omitempty"`
	Key        string  `json:"key"`
	Value      *string `json:"value"`
	Reason     string  `json:"reason"`
	RoundRobin *string `json:"round_robin,omitempty"`
	Random     *string `json:"random,omitempty"`
	Disagree   bool    `json:"placements_disagree,omitempty"`
	Line       string  `json:"line"`
}

type jsonRow struct {
	Point       int               `json:"point"`
	Values      map[string]string `json:"values"`
	Variant     string            `json:"variant"`
	Seeds       []uint64          `json:"seeds"`
	Streams     []jsonStream      `json:"streams"`
	HottestLoad replicas.JSON     `json:"hottest_shard_utilization"`
	Skew        replicas.JSON     `json:"max_over_mean_shard"`
	// ErrorRate is over every stream and cause; Failures counts failed requests by cause.
	ErrorRate       replicas.JSON            `json:"error_rate"`
	HottestShard    int                      `json:"hottest_shard"`
	HottestNode     int                      `json:"hottest_node"`
	HottestNodeLoad replicas.JSON            `json:"hottest_node_utilization"`
	Failures        map[string]replicas.JSON `json:"failures"`
	Bottleneck      replicas.JSONBottleneck  `json:"bottleneck"`
	Saturated       int                      `json:"saturated"`
	// Split: the replications disagree (on the SLOs, or without SLOs on saturating).
	Split bool     `json:"split"`
	SLO   *jsonSLO `json:"slo,omitempty"`
}

// jsonSLO is the SLOs' judgement of a row.
type jsonSLO struct {
	OK      bool   `json:"ok"` // over the replications together, as capacity judges
	Passes  int    `json:"passes"`
	Binding string `json:"binding"`
	Reason  string `json:"reason"`
	// RandomOK is the verdict of the same point under placement = "random" (the sweep's
	// placement check), absent where it did not run; where it differs from OK, placement
	// binds the row (its binds cell says so).
	RandomOK *bool `json:"random_placement_ok,omitempty"`
}

type jsonStream struct {
	Name        string        `json:"name"`
	Mean        replicas.JSON `json:"mean_ms"`
	P50         replicas.JSON `json:"p50_ms"`
	P99         replicas.JSON `json:"p99_ms"`
	P999        replicas.JSON `json:"p999_ms"`
	ErrorRate   replicas.JSON `json:"error_rate"`
	Subrequests replicas.JSON `json:"fanout"`
	Partitions  replicas.JSON `json:"partitions"`
	// Offered and Completed are request counts; Failures counts failed requests by cause.
	Offered   replicas.JSON            `json:"offered"`
	Completed replicas.JSON            `json:"completed"`
	Failures  map[string]replicas.JSON `json:"failures"`
}

// JSON returns sweep.json's content.
func (sw *Sweep) JSON() *SweepJSON {
	c := &sw.Config
	out := &SweepJSON{Scenario: sw.Scenario, Replications: c.Replications, Rows: []jsonRow{}}
	for _, a := range c.Axes {
		out.Vary = append(out.Vary, a.Key)
	}
	for _, s := range c.SLOs {
		out.SLOs = append(out.SLOs, s.Text)
	}
	if len(c.SLOs) > 0 {
		m, u := c.MaxErrors, 1.0
		out.MaxErrors = &m
		if c.MaxUtilization > 0 && c.MaxUtilization < 1 {
			u = c.MaxUtilization
		}
		out.MaxUtilization = &u
	}
	for _, ch := range sw.choices() {
		value := func(i int) *string {
			if i < 0 {
				return nil
			}
			return &sw.Rows[i].Point.Values[0]
		}
		j := jsonChoice{Group: ch.label, Key: c.Axes[0].Key, Value: value(ch.best), Reason: ch.reason, Line: ch.line}
		if ch.both {
			j.RoundRobin, j.Random, j.Disagree = value(ch.roundRobin), value(ch.random), ch.disagree
		}
		out.Choice = append(out.Choice, j)
	}
	for i, r := range sw.Rows {
		j := jsonRow{Point: r.Point.Index, Values: map[string]string{}, Variant: r.Variant, Seeds: r.Seeds,
			HottestLoad: r.HottestLoad.JSON(4), Skew: r.Skew.JSON(3), ErrorRate: r.ErrorRate.JSON(6),
			HottestShard: r.HottestShard, HottestNode: r.HottestNode, HottestNodeLoad: r.HottestNodeLoad.JSON(4),
			Failures: replicas.FailuresJSON(&r.Failures), Bottleneck: replicas.BottleneckJSON(r.Bottleneck, r.Agree),
			Saturated: r.Saturated, Split: r.Split()}
		if r.Judged {
			j.SLO = &jsonSLO{OK: r.Assessment.OK, Passes: r.Passes, Binding: r.Assessment.Binding, Reason: r.Assessment.Reason, RandomOK: sw.randomOK(i)}
		}
		for i, a := range c.Axes {
			j.Values[a.Key] = r.Point.Values[i]
		}
		for _, s := range r.Streams {
			j.Streams = append(j.Streams, jsonStream{Name: s.Name, Mean: s.Mean.JSON(3), P50: s.P50.JSON(3), P99: s.P99.JSON(3),
				P999: s.P999.JSON(3), ErrorRate: s.ErrorRate.JSON(6), Subrequests: s.Subrequests.JSON(3), Partitions: s.Partitions.JSON(3),
				Offered: s.Offered.JSON(3), Completed: s.Completed.JSON(3), Failures: replicas.FailuresJSON(&s.Failures)})
		}
		out.Rows = append(out.Rows, j)
	}
	return out
}

// CSV writes sweep.csv: one row per point and variant; per stream, its statistics and
// their 95% half-widths (empty with one replication) in columns prefixed by its name. An
// undefined statistic (a latency of a stream that completed nothing) is an empty cell.
// The columns are csvColumns, in order.
func (sw *Sweep) CSV(w io.Writer) error {
	cw := escape.NewCSVWriter(w)
	var streams []string // the first row's, which every row has
	if len(sw.Rows) > 0 {
		for _, s := range sw.Rows[0].Streams {
			streams = append(streams, s.Name)
		}
	}
	var head []string
	for _, g := range csvColumns {
		head = append(head, g.head(sw, streams)...)
	}
	cw.Write(head)
	for i := range sw.Rows {
		var rec []string
		for _, g := range csvColumns {
			rec = append(rec, g.cells(sw, i)...)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// csvGroup is a group of sweep.csv's columns: their names, for the streams of the first
// row, and row i's cells.
type csvGroup struct {
	head  func(sw *Sweep, streams []string) []string
	cells func(sw *Sweep, i int) []string
}

// csvColumns are sweep.csv's column groups, in order. The columns that came later (the
// hottest node, failures by cause, the streams' counts, then the intervals, ranges,
// bottleneck and SLO verdicts) follow all the others, so that scripts reading columns by
// position still work.
var csvColumns = []csvGroup{
	{(*Sweep).idHead, (*Sweep).idCells},
	{rowHead, (*Sweep).rowCells},
	{streamHead, (*Sweep).streamCells},
	{hottestHead, (*Sweep).hottestCells},
	{countHead, (*Sweep).countCells},
	{spreadHead, (*Sweep).spreadCells},
	{verdictHead, (*Sweep).verdictCells},
}

// streamStats are the statistics of a stream that sweep.csv writes with their half-widths.
var streamStats = []string{"mean_ms", "p50_ms", "p99_ms", "p999_ms", "error_rate", "fanout", "partitions"}

// withCI95 are columns each followed by its 95% half-width: NAME, NAME_ci95.
func withCI95(prefix string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, prefix+n, prefix+n+"_ci95")
	}
	return out
}

// meanHalf are estimates' cells: the mean and the 95% half-width of each.
func meanHalf(es ...replicas.Estimate) []string {
	var out []string
	for _, e := range es {
		out = append(out, replicas.Num(e.Mean), replicas.Num(e.Half))
	}
	return out
}

// idHead names a row: its point, the varied keys, the variant and the seeds.
func (sw *Sweep) idHead([]string) []string {
	head := []string{"point"}
	for _, a := range sw.Config.Axes {
		head = append(head, a.Key)
	}
	return append(head, "variant", "seeds")
}

func (sw *Sweep) idCells(i int) []string {
	r := &sw.Rows[i]
	var seeds []string
	for _, s := range r.Seeds {
		seeds = append(seeds, strconv.FormatUint(s, 10))
	}
	rec := append([]string{strconv.Itoa(r.Point.Index)}, r.Point.Values...)
	return append(rec, r.Variant, strings.Join(seeds, " "))
}

// rowHead is the row's own figures: the hottest shard's load, the skew and the error rate.
func rowHead(*Sweep, []string) []string {
	return []string{"hottest_shard_utilization", "hottest_ci95", "max_over_mean_shard", "skew_ci95", "error_rate", "error_rate_ci95"}
}

func (sw *Sweep) rowCells(i int) []string {
	r := &sw.Rows[i]
	return meanHalf(r.HottestLoad, r.Skew, r.ErrorRate)
}

// streamHead is each stream's statistics (streamStats).
func streamHead(_ *Sweep, streams []string) []string {
	var head []string
	for _, s := range streams {
		head = append(head, withCI95(s+"_", streamStats...)...)
	}
	return head
}

func (sw *Sweep) streamCells(i int) []string {
	var rec []string
	for _, s := range sw.Rows[i].Streams {
		rec = append(rec, meanHalf(s.Mean, s.P50, s.P99, s.P999, s.ErrorRate, s.Subrequests, s.Partitions)...)
	}
	return rec
}

// hottestHead is the hottest shard and node, the node's load, and the failures by cause.
func hottestHead(*Sweep, []string) []string {
	head := []string{"hottest_shard", "hottest_node", "hottest_node_utilization", "hottest_node_ci95"}
	for _, c := range metrics.Causes {
		head = append(head, withCI95("", c.String())...)
	}
	return head
}

func (sw *Sweep) hottestCells(i int) []string {
	r := &sw.Rows[i]
	rec := []string{strconv.Itoa(r.HottestShard), strconv.Itoa(r.HottestNode)}
	return append(append(rec, meanHalf(r.HottestNodeLoad)...), meanHalf(r.Failures[:]...)...)
}

// countHead is each stream's requests offered and completed and its failures by cause.
func countHead(_ *Sweep, streams []string) []string {
	var head []string
	for _, s := range streams {
		head = append(head, withCI95(s+"_", "offered", "completed")...)
		for _, c := range metrics.Causes {
			head = append(head, withCI95(s+"_", c.String())...)
		}
	}
	return head
}

func (sw *Sweep) countCells(i int) []string {
	var rec []string
	for _, s := range sw.Rows[i].Streams {
		rec = append(append(rec, meanHalf(s.Offered, s.Completed)...), meanHalf(s.Failures[:]...)...)
	}
	return rec
}

// spreadHead is each stream's p99 and the hottest node's load: interval and range.
func spreadHead(_ *Sweep, streams []string) []string {
	var head []string
	for _, s := range streams {
		head = append(head, spreadNames(s+"_p99_ms_")...)
	}
	return append(head, spreadNames("hottest_node_utilization_")...)
}

// spreadNames are the columns of an estimate's interval and range (replicas.Spread).
func spreadNames(prefix string) []string {
	var out []string
	for _, c := range replicas.SpreadCols {
		out = append(out, prefix+c)
	}
	return out
}

func (sw *Sweep) spreadCells(i int) []string {
	var rec []string
	for _, s := range sw.Rows[i].Streams {
		rec = append(rec, replicas.Spread(s.P99)...)
	}
	return append(rec, replicas.Spread(sw.Rows[i].HottestNodeLoad)...)
}

// verdictHead is what binds, the saturated and split replications, and the SLO verdicts,
// over the replications and under random placement.
func verdictHead(*Sweep, []string) []string {
	return []string{"bottleneck", "bottleneck_node", "bottleneck_node_peak_utilization", "bottleneck_agree", "saturated", "split",
		"slo_ok", "slo_passes", "slo_binding", "slo_ok_random_placement"}
}

func (sw *Sweep) verdictCells(i int) []string {
	r := &sw.Rows[i]
	node, peak := "", ""
	if r.Bottleneck.Node >= 0 {
		node, peak = strconv.Itoa(r.Bottleneck.Node), replicas.Num(units.Round(r.Bottleneck.Peak, 4))
	}
	rec := []string{r.Bottleneck.Resource.String(), node, peak, strconv.Itoa(r.Agree), strconv.Itoa(r.Saturated), strconv.FormatBool(r.Split())}
	if r.Judged {
		rec = append(rec, strconv.FormatBool(r.Assessment.OK), strconv.Itoa(r.Passes), r.Assessment.Binding)
	} else {
		rec = append(rec, "", "", "")
	}
	random := ""
	if ok := sw.randomOK(i); ok != nil {
		random = strconv.FormatBool(*ok)
	}
	return append(rec, random)
}

// verdictCell says how a row fares against the SLOs: "meets 3/3", "fails 0/3", or
// "SPLIT 1/3" when its replications disagree (the count is of replications meeting every
// SLO alone), or "did not finish" when a run's migration or rebalance was not over by the
// end of the run (its SLOs are not judged on a change half made).
func verdictCell(r *Row) string {
	n := len(r.Seeds)
	switch {
	case r.Assessment.Binding == metrics.Unfinished:
		return "did not finish"
	case r.Unsettled > 0 && r.Assessment.OK:
		// A pass measured before the hottest queue settled is no pass.
		return fmt.Sprintf("unsettled %d/%d", r.Unsettled, n)
	case r.Split() && (r.Passes == 0 || r.Passes == n):
		// The seeds disagree on the SLOs, and the ceiling fails those that meet them.
		return fmt.Sprintf("SPLIT %d/%d: ceiling", r.SLOPasses, n)
	case r.Split():
		return fmt.Sprintf("SPLIT %d/%d", r.Passes, n)
	case r.Assessment.OK:
		return fmt.Sprintf("meets %d/%d", r.Passes, n)
	case r.Assessment.Binding == metrics.Ceiling:
		return fmt.Sprintf("fails %d/%d: ceiling", r.Passes, n)
	}
	return fmt.Sprintf("fails %d/%d", r.Passes, n)
}

// Table is the sweep table: per point and variant, each stream's p99 with its 95%
// interval (and, with replications, its median and range) and fan-out (subrequests per
// request), then the hottest shard and node and their loads, the error rate over every
// stream and cause, what binds, and with SLOs how the replications fare.
func (sw *Sweep) Table() *report.Table {
	t := &report.Table{Left: len(sw.Config.Axes) + 1}
	if len(sw.Rows) == 0 {
		return t
	}
	t.Head = sw.tableHead()
	replaced, verdict := sw.replacedKeys(), sw.verdictColumn()
	for i := range sw.Rows {
		t.Rows = append(t.Rows, sw.tableRow(i, replaced[sw.Rows[i].Variant], verdict))
	}
	return t
}

// verdictColumn is the table's last column: "SLOs" with SLOs, "saturated" with
// replications of which some saturated, else none ("").
func (sw *Sweep) verdictColumn() string {
	switch {
	case len(sw.Config.SLOs) > 0:
		return "SLOs"
	case sw.Config.Replications > 1 && slices.ContainsFunc(sw.Rows, func(r Row) bool { return r.Saturated > 0 }):
		return "saturated"
	}
	return ""
}

// tableHead is the table's head (Table).
func (sw *Sweep) tableHead() []string {
	var head []string
	for _, a := range sw.Config.Axes {
		head = append(head, a.Key)
	}
	head = append(head, "variant")
	for _, s := range sw.Rows[0].Streams {
		head = append(head, s.Name+" p99 ms")
		if sw.Config.Replications > 1 {
			head = append(head, "median (range)")
		}
		head = append(head, "fan-out")
	}
	head = append(head, "hottest shard", "hottest node", "errors", "binds")
	if v := sw.verdictColumn(); v != "" {
		head = append(head, v)
	}
	return head
}

// tableRow is row i of the table; replaced are the varied keys that replace its variant's
// own values (rowLabel), verdict the last column (verdictColumn).
func (sw *Sweep) tableRow(i int, replaced []string, verdict string) []string {
	r := &sw.Rows[i]
	rec := append(append([]string(nil), r.Point.Values...), rowLabel(sw.Config.Axes, r, replaced))
	for _, s := range r.Streams {
		p99 := s.P99
		if r.Split() {
			// An interval over replications that disagree describes none of them.
			p99 = replicas.Estimate{Mean: s.P99.Mean, Lo: math.NaN()}
		}
		cell := replicas.WithInterval(p99, 2, "")
		if r.Split() {
			cell += " split"
		}
		rec = append(rec, cell)
		if sw.Config.Replications > 1 {
			rec = append(rec, replicas.RangeOf(s.P99))
		}
		rec = append(rec, strconv.FormatFloat(s.Subrequests.Mean, 'f', 1, 64))
	}
	rec = append(rec, fmt.Sprintf("%d: %s", r.HottestShard, units.Percent(r.HottestLoad.Mean, 1)),
		fmt.Sprintf("%d: %s", r.HottestNode, units.Percent(r.HottestNodeLoad.Mean, 1)),
		units.Share(r.ErrorRate.Mean, 2, units.KeepZero), sw.bindsCell(i))
	switch verdict {
	case "SLOs":
		rec = append(rec, verdictCell(r))
	case "saturated":
		cell := fmt.Sprintf("%d/%d", r.Saturated, len(r.Seeds))
		if r.Split() {
			cell = "SPLIT " + cell
		}
		rec = append(rec, cell)
	}
	return rec
}

// rowLabel names a row in the tables: its variant's name, followed by the varied values
// that replaced the variant's own (keys) ("random salt 8 with keyspace.salt=2"), since a
// name that states a value the row did not run with misleads.
func rowLabel(axes []Axis, r *Row, keys []string) string {
	var with []string
	for i, a := range axes {
		if slices.Contains(keys, a.Key) && i < len(r.Point.Values) {
			with = append(with, a.Key+"="+r.Point.Values[i])
		}
	}
	if len(with) == 0 {
		return r.Variant
	}
	return r.Variant + " with " + strings.Join(with, ", ")
}

// tableWidth is the most columns the text table takes: a wider one is written in parts
// (report.Table.Fit).
const tableWidth = 160

// Text writes the sweep table, and a line on what SPLIT means when a row is split.
func (sw *Sweep) Text(w io.Writer) {
	if len(sw.Rows) == 0 {
		return
	}
	sw.Table().FitText(w, tableWidth)
	sw.footnote(w)
}

// Markdown writes the sweep table as Markdown.
func (sw *Sweep) Markdown(w io.Writer) {
	if len(sw.Rows) == 0 {
		return
	}
	sw.Table().Markdown(w)
	sw.footnote(w)
}

func (sw *Sweep) footnote(w io.Writer) {
	for i := range sw.Rows {
		if sw.Rows[i].Split() {
			what := "some replications meet every SLO and some do not"
			if len(sw.Config.SLOs) == 0 {
				what = "some replications saturated and some did not"
			}
			fmt.Fprintf(w, "\nSPLIT: %s; the mean describes none of them (see each seed with shardsim run --seed).\n", what)
			break
		}
	}
	if lines := sw.closing(); len(lines) > 0 {
		fmt.Fprintln(w)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
}

// WriteFiles writes sweep.csv, sweep.json and, unless format is "", per stream a chart of
// p99 (95% intervals, SLO line, split points circled), one of fan-out (subrequests per
// request) and one of partitions per request against the first varied key, and one of the
// hottest node's load. It returns the files written.
func (sw *Sweep) WriteFiles(dir, format string) ([]string, error) {
	var files []string
	var buf bytes.Buffer
	if err := sw.CSV(&buf); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "sweep.csv"), buf.Bytes()); err != nil {
		return nil, err
	}
	buf.Reset()
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sw.JSON()); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "sweep.json"), escape.JSON(buf.Bytes())); err != nil {
		return nil, err
	}
	files = append(files, filepath.Join(dir, "sweep.csv"), filepath.Join(dir, "sweep.json"))
	if format == "" || len(sw.Config.Axes) == 0 || len(sw.Rows) == 0 {
		return files, nil
	}
	write := func(name string, l plots.Lines) error {
		path := filepath.Join(dir, name+"."+format)
		if err := plots.WriteLines(path, plots.Format(format), l); err != nil {
			return err
		}
		files = append(files, path)
		return nil
	}
	var names []string
	for _, st := range sw.Rows[0].Streams {
		names = append(names, st.Name)
	}
	slugs := report.Slugs(names) // streams whose names differ in case alone get files of their own
	for si := range sw.Rows[0].Streams {
		for _, what := range []string{"p99", "fanout", "partitions"} {
			if err := write(fmt.Sprintf("sweep-%s-%s", what, slugs[si]), sw.chart(si, what)); err != nil {
				return files, err
			}
		}
	}
	if err := write("sweep-node-load", sw.chart(-1, "node")); err != nil {
		return files, err
	}
	return files, nil
}

// chart is stream si's p99, fan-out or partitions, or (si -1) the hottest node's load,
// against the first varied key: a line per variant and combination of the other keys.
func (sw *Sweep) chart(si int, what string) plots.Lines {
	first := sw.Config.Axes[0]
	l := sw.chartFrame(si, what)
	for i := range first.Values {
		l.Times = append(l.Times, float64(i))
	}
	index := map[string]int{}
	replaced := sw.replacedKeys()
	for ri := range sw.Rows {
		r := &sw.Rows[ri]
		name := seriesName(sw.Config.Axes, r, replaced[r.Variant])
		k, ok := index[name]
		if !ok {
			k = len(l.Series)
			index[name] = k
			n := len(first.Values)
			l.Series = append(l.Series, plots.Series{Name: name, Y: nanSlice(n), Lo: nanSlice(n), Hi: nanSlice(n), Flag: make([]bool, n),
				Stopped: make([]bool, n), Failing: make([]bool, n), Notes: make([]string, n)})
		}
		x := 0 // the row's place on the first axis
		for i, v := range first.Values {
			if v == r.Point.Values[0] {
				x = i
			}
		}
		sw.plot(&l.Series[k], x, r, si, what)
	}
	return l
}

// chartFrame is a chart's title, axes and reference line (chart).
func (sw *Sweep) chartFrame(si int, what string) plots.Lines {
	first := sw.Config.Axes[0]
	l := plots.Lines{XLabel: first.Key, XTicks: first.Values, LogY: what == "p99"}
	var st string
	if si >= 0 {
		st = sw.Rows[0].Streams[si].Name
	}
	switch what {
	case "p99":
		l.Title = fmt.Sprintf("%s - %s: p99 latency against %s", sw.Scenario, st, first.Key)
		l.YLabel = "p99 latency (ms)"
		// The tightest p99 SLO on this stream.
		for _, s := range sw.Config.SLOs {
			if s.Stream == st && s.Stat == metrics.P99 && (l.SLO == 0 || s.Bound < l.SLO) {
				l.SLO = s.Bound
			}
		}
	case "fanout":
		l.Title = fmt.Sprintf("%s - %s: fan-out against %s", sw.Scenario, st, first.Key)
		l.YLabel = "fan-out (subrequests per request)"
	case "partitions":
		l.Title = fmt.Sprintf("%s - %s: partitions per request against %s", sw.Scenario, st, first.Key)
		l.YLabel = "partitions visited per request"
	case "node":
		l.Title = fmt.Sprintf("%s: hottest node's load against %s", sw.Scenario, first.Key)
		l.YLabel = "hottest node's load (% of its cores)"
		l.SLO, l.RefLabel = 100, "all cores"
	}
	if r := sw.Config.Replications; r > 1 {
		l.Title += replicas.BandWords(r)
	}
	return l
}

// seriesName is the line a row belongs to: its variant and the values of the other axes;
// a variant whose own value of the first axis's key the axis replaces (replaced) says so
// (its name may state one value, "random salt 8", of a line drawn over many).
func seriesName(axes []Axis, r *Row, replaced []string) string {
	name := r.Variant
	if slices.Contains(replaced, axes[0].Key) {
		name += " with " + axes[0].Key + " varied"
	}
	if len(axes) > 1 {
		var parts []string
		for i, a := range axes[1:] {
			parts = append(parts, a.Key+"="+r.Point.Values[i+1])
		}
		name += " (" + strings.Join(parts, ", ") + ")"
	}
	return name
}

// plot sets point x of series s to row r's figure: its mean and band, whether its
// replications split or saturated, and, for a p99, whether more requests failed than
// MaxErrors (a latency past the error limit is of the completed requests only).
func (sw *Sweep) plot(s *plots.Series, x int, r *Row, si int, what string) {
	var e replicas.Estimate
	scale := 1.0
	switch what {
	case "p99":
		e = r.Streams[si].P99
	case "fanout":
		e = r.Streams[si].Subrequests
	case "partitions":
		e = r.Streams[si].Partitions
	case "node":
		e, scale = r.HottestNodeLoad, 100
	}
	lo, hi := replicas.Band(e)
	s.Y[x], s.Lo[x], s.Hi[x] = scale*e.Mean, scale*lo, scale*hi
	s.Flag[x] = r.Split()
	s.Stopped[x] = r.Saturated > 0 // its figures cover the time before its stop
	s.Failing[x] = what == "p99" && r.ErrorRate.Defined() && r.ErrorRate.Mean > sw.Config.MaxErrors
	if s.Failing[x] {
		s.Notes[x] = units.Share(r.ErrorRate.Mean, 2, units.KeepZero) + " failed"
	}
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
