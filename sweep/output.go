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

	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/metrics"
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

// jsonEstimate is an Estimate in JSON. ci95 is Student's t half-width around the mean;
// lo95 and hi95 bound the interval the tables and charts show (see Estimate); all are
// null with one replication, and every field is null for an undefined figure (a latency
// of a stream that completed nothing in some replication).
type jsonEstimate struct {
	Mean   *float64 `json:"mean"`
	CI95   *float64 `json:"ci95"`
	Lo95   *float64 `json:"lo95"`
	Hi95   *float64 `json:"hi95"`
	Median *float64 `json:"median"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

func (e Estimate) json(digits int) jsonEstimate {
	opt := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		r := units.Round(x, digits)
		return &r
	}
	return jsonEstimate{Mean: opt(e.Mean), CI95: opt(e.Half), Lo95: opt(e.Lo), Hi95: opt(e.Hi),
		Median: opt(e.Median), Min: opt(e.Min), Max: opt(e.Max)}
}

// SweepJSON is sweep.json.
type SweepJSON struct {
	Scenario     string    `json:"scenario"`
	Vary         []string  `json:"vary"`
	Replications int       `json:"replications"`
	SLOs         []string  `json:"slos,omitempty"`
	MaxErrors    *float64  `json:"max_errors,omitempty"`
	Rows         []jsonRow `json:"rows"`
}

type jsonRow struct {
	Point       int               `json:"point"`
	Values      map[string]string `json:"values"`
	Variant     string            `json:"variant"`
	Seeds       []uint64          `json:"seeds"`
	Streams     []jsonStream      `json:"streams"`
	HottestLoad jsonEstimate      `json:"hottest_shard_utilization"`
	Skew        jsonEstimate      `json:"max_over_mean_shard"`
	// ErrorRate is over every stream and cause; Failures counts failed requests by cause.
	ErrorRate       jsonEstimate            `json:"error_rate"`
	HottestShard    int                     `json:"hottest_shard"`
	HottestNode     int                     `json:"hottest_node"`
	HottestNodeLoad jsonEstimate            `json:"hottest_node_utilization"`
	Failures        map[string]jsonEstimate `json:"failures"`
	Bottleneck      jsonBottleneck          `json:"bottleneck"`
	Saturated       int                     `json:"saturated"`
	// Split: the replications disagree (on the SLOs, or without SLOs on saturating).
	Split bool     `json:"split"`
	SLO   *jsonSLO `json:"slo,omitempty"`
}

// jsonBottleneck is a metrics.Bottleneck as summary.json writes it; agree counts the
// replications that name it.
type jsonBottleneck struct {
	report.BottleneckJSON
	Agree int `json:"agree"`
}

func bottleneckJSON(b metrics.Bottleneck, agree int) jsonBottleneck {
	return jsonBottleneck{BottleneckJSON: report.BottleneckOf(b), Agree: agree}
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
	Name        string       `json:"name"`
	Mean        jsonEstimate `json:"mean_ms"`
	P50         jsonEstimate `json:"p50_ms"`
	P99         jsonEstimate `json:"p99_ms"`
	P999        jsonEstimate `json:"p999_ms"`
	ErrorRate   jsonEstimate `json:"error_rate"`
	Subrequests jsonEstimate `json:"fanout"`
	Partitions  jsonEstimate `json:"partitions"`
	// Offered and Completed are request counts; Failures counts failed requests by cause.
	Offered   jsonEstimate            `json:"offered"`
	Completed jsonEstimate            `json:"completed"`
	Failures  map[string]jsonEstimate `json:"failures"`
}

// failuresJSON is a per-cause array of estimated counts in JSON, keyed by cause.
func failuresJSON(f *[len(metrics.Causes)]Estimate) map[string]jsonEstimate {
	out := map[string]jsonEstimate{}
	for _, c := range metrics.Causes {
		out[c.String()] = f[c].json(3)
	}
	return out
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
		m := c.MaxErrors
		out.MaxErrors = &m
	}
	for i, r := range sw.Rows {
		j := jsonRow{Point: r.Point.Index, Values: map[string]string{}, Variant: r.Variant, Seeds: r.Seeds,
			HottestLoad: r.HottestLoad.json(4), Skew: r.Skew.json(3), ErrorRate: r.ErrorRate.json(6),
			HottestShard: r.HottestShard, HottestNode: r.HottestNode, HottestNodeLoad: r.HottestNodeLoad.json(4),
			Failures: failuresJSON(&r.Failures), Bottleneck: bottleneckJSON(r.Bottleneck, r.Agree),
			Saturated: r.Saturated, Split: r.Split()}
		if r.Judged {
			j.SLO = &jsonSLO{OK: r.Assessment.OK, Passes: r.Passes, Binding: r.Assessment.Binding, Reason: r.Assessment.Reason, RandomOK: sw.randomOK(i)}
		}
		for i, a := range c.Axes {
			j.Values[a.Key] = r.Point.Values[i]
		}
		for _, s := range r.Streams {
			j.Streams = append(j.Streams, jsonStream{Name: s.Name, Mean: s.Mean.json(3), P50: s.P50.json(3), P99: s.P99.json(3),
				P999: s.P999.json(3), ErrorRate: s.ErrorRate.json(6), Subrequests: s.Subrequests.json(3), Partitions: s.Partitions.json(3),
				Offered: s.Offered.json(3), Completed: s.Completed.json(3), Failures: failuresJSON(&s.Failures)})
		}
		out.Rows = append(out.Rows, j)
	}
	return out
}

func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// spread is the CSV cells of an estimate's interval and range: lo95, hi95, median, min, max.
func spread(e Estimate) []string {
	return []string{num(e.Lo), num(e.Hi), num(e.Median), num(e.Min), num(e.Max)}
}

var spreadCols = []string{"lo95", "hi95", "median", "min", "max"}

// CSV writes sweep.csv: one row per point and variant; per stream, its statistics and
// their 95% half-widths (empty with one replication) in columns prefixed by its name. An
// undefined statistic (a latency of a stream that completed nothing) is an empty cell.
// The columns that came later (the hottest node, failures by cause, the streams' counts,
// then the intervals, ranges, bottleneck and SLO verdicts) follow all the others, so that
// scripts reading columns by position still work.
func (sw *Sweep) CSV(w io.Writer) error {
	rows, axes := sw.Rows, sw.Config.Axes
	cw := escape.NewCSVWriter(w)
	head := []string{"point"}
	for _, a := range axes {
		head = append(head, a.Key)
	}
	head = append(head, "variant", "seeds", "hottest_shard_utilization", "hottest_ci95", "max_over_mean_shard", "skew_ci95", "error_rate", "error_rate_ci95")
	if len(rows) > 0 {
		for _, s := range rows[0].Streams {
			for _, c := range []string{"mean_ms", "p50_ms", "p99_ms", "p999_ms", "error_rate", "fanout", "partitions"} {
				head = append(head, s.Name+"_"+c, s.Name+"_"+c+"_ci95")
			}
		}
	}
	head = append(head, "hottest_shard", "hottest_node", "hottest_node_utilization", "hottest_node_ci95")
	for _, c := range metrics.Causes {
		head = append(head, c.String(), c.String()+"_ci95")
	}
	if len(rows) > 0 {
		for _, s := range rows[0].Streams {
			for _, c := range []string{"offered", "completed"} {
				head = append(head, s.Name+"_"+c, s.Name+"_"+c+"_ci95")
			}
			for _, c := range metrics.Causes {
				head = append(head, s.Name+"_"+c.String(), s.Name+"_"+c.String()+"_ci95")
			}
		}
		for _, s := range rows[0].Streams {
			for _, c := range spreadCols {
				head = append(head, s.Name+"_p99_ms_"+c)
			}
		}
	}
	for _, c := range spreadCols {
		head = append(head, "hottest_node_utilization_"+c)
	}
	head = append(head, "bottleneck", "bottleneck_node", "bottleneck_node_peak_utilization", "bottleneck_agree", "saturated", "split",
		"slo_ok", "slo_passes", "slo_binding", "slo_ok_random_placement")
	cw.Write(head)
	for i, r := range rows {
		rec := []string{strconv.Itoa(r.Point.Index)}
		rec = append(rec, r.Point.Values...)
		var seeds []string
		for _, s := range r.Seeds {
			seeds = append(seeds, strconv.FormatUint(s, 10))
		}
		rec = append(rec, r.Variant, strings.Join(seeds, " "))
		for _, e := range []Estimate{r.HottestLoad, r.Skew, r.ErrorRate} {
			rec = append(rec, num(e.Mean), num(e.Half))
		}
		for _, s := range r.Streams {
			for _, e := range []Estimate{s.Mean, s.P50, s.P99, s.P999, s.ErrorRate, s.Subrequests, s.Partitions} {
				rec = append(rec, num(e.Mean), num(e.Half))
			}
		}
		rec = append(rec, strconv.Itoa(r.HottestShard), strconv.Itoa(r.HottestNode), num(r.HottestNodeLoad.Mean), num(r.HottestNodeLoad.Half))
		for _, e := range r.Failures {
			rec = append(rec, num(e.Mean), num(e.Half))
		}
		for _, s := range r.Streams {
			for _, e := range append([]Estimate{s.Offered, s.Completed}, s.Failures[:]...) {
				rec = append(rec, num(e.Mean), num(e.Half))
			}
		}
		for _, s := range r.Streams {
			rec = append(rec, spread(s.P99)...)
		}
		rec = append(rec, spread(r.HottestNodeLoad)...)
		node, peak := "", ""
		if r.Bottleneck.Node >= 0 {
			node, peak = strconv.Itoa(r.Bottleneck.Node), num(units.Round(r.Bottleneck.Peak, 4))
		}
		rec = append(rec, r.Bottleneck.Resource.String(), node, peak, strconv.Itoa(r.Agree), strconv.Itoa(r.Saturated), strconv.FormatBool(r.Split()))
		if r.Judged {
			rec = append(rec, strconv.FormatBool(r.Assessment.OK), strconv.Itoa(r.Passes), r.Assessment.Binding)
		} else {
			rec = append(rec, "", "", "")
		}
		random := ""
		if ok := sw.randomOK(i); ok != nil {
			random = strconv.FormatBool(*ok)
		}
		cw.Write(append(rec, random))
	}
	cw.Flush()
	return cw.Error()
}

// short formats x with about three significant digits, without an exponent.
func short(x float64) string {
	switch a := math.Abs(x); {
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 1 || a == 0:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// withInterval formats an estimate as "15.50 [11.8, 19.2]": the mean with digits decimals
// and the 95% interval; the mean alone with one replication, "-" when undefined.
func withInterval(e Estimate, digits int, unit string) string {
	if !e.Defined() {
		return "-"
	}
	s := strconv.FormatFloat(e.Mean, 'f', digits, 64) + unit
	switch {
	case e.N == 2:
		// Student's t with one degree of freedom is 12.7: the interval from two runs
		// spans orders of magnitude and says nothing (the median and range column does).
		s += " [n/a: 2 runs]"
	case !math.IsNaN(e.Lo):
		s += " [" + short(e.Lo) + ", " + short(e.Hi) + "]"
	}
	return s
}

// band is the bar a chart draws around an estimate: its 95% interval, or with two runs,
// whose interval says nothing (withInterval), their range.
func band(e Estimate) (lo, hi float64) {
	if e.N == 2 {
		return e.Min, e.Max
	}
	return e.Lo, e.Hi
}

// bandWords says what the bars of a chart over r replications are.
func bandWords(r int) string {
	if r == 2 {
		return " (mean and range of 2 seeds)"
	}
	return fmt.Sprintf(" (mean and 95%% interval of %d seeds)", r)
}

// rangeOf formats an estimate's median and range: "15.1 (12.0–19.4)"; "-" when undefined.
func rangeOf(e Estimate) string {
	if !e.Defined() {
		return "-"
	}
	return short(e.Median) + " (" + short(e.Min) + "–" + short(e.Max) + ")"
}

// bottleneckShort is a bottleneck in a table cell: "cpu node 15 (189% peak)".
func bottleneckShort(b metrics.Bottleneck, agree, of int) string {
	s := b.Resource.String()
	var notes []string
	switch {
	case b.Node >= 0 && b.Resource == metrics.CPU:
		s += fmt.Sprintf(" node %d", b.Node)
		notes = append(notes, units.Percent(b.Peak, 0)+" peak")
	case b.Node >= 0 && b.Resource == metrics.Queue:
		s += fmt.Sprintf(" node %d", b.Node)
	case b.Resource == metrics.FanOut:
		s += " of " + b.Stream
	case b.Resource == metrics.Locks && b.Stream != "":
		s += " of " + b.Stream
		if b.Lock > 0 {
			notes = append(notes, units.Percent(b.Lock, 0)+" offered")
		}
	}
	// Nothing failed, no objective failed and the resource nearest its limit is under
	// metrics.BindingLoad: nothing binds yet; the nearest is named in brackets.
	if !b.Binding {
		s, notes = "none", []string{strings.Join(append([]string{strings.TrimPrefix(s, "cpu ") + " at"}, notes...), " ")}
	}
	// Where the replications disagree on what binds, say how many agree with the one named,
	// in words: a bare "1/2" beside a percentage reads as a fraction of something else.
	if agree < of {
		notes = append(notes, fmt.Sprintf("%d of %d seeds", agree, of))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
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
	case r.Split():
		return fmt.Sprintf("SPLIT %d/%d", r.Passes, n)
	case r.Assessment.OK:
		return fmt.Sprintf("meets %d/%d", r.Passes, n)
	}
	return fmt.Sprintf("fails %d/%d", r.Passes, n)
}

// Table is the sweep table: per point and variant, each stream's p99 with its 95%
// interval (and, with replications, its median and range) and fan-out (subrequests per
// request), then the hottest shard and node and their loads, the error rate over every
// stream and cause, what binds, and with SLOs how the replications fare.
func (sw *Sweep) Table() *report.Table {
	rows, axes := sw.Rows, sw.Config.Axes
	t := &report.Table{Left: len(axes) + 1}
	if len(rows) == 0 {
		return t
	}
	reps := sw.Config.Replications > 1
	for _, a := range axes {
		t.Head = append(t.Head, a.Key)
	}
	t.Head = append(t.Head, "variant")
	for _, s := range rows[0].Streams {
		t.Head = append(t.Head, s.Name+" p99 ms")
		if reps {
			t.Head = append(t.Head, "median (range)")
		}
		t.Head = append(t.Head, "fan-out")
	}
	t.Head = append(t.Head, "hottest shard", "hottest node", "errors", "binds")
	judged := len(sw.Config.SLOs) > 0
	saturated := false
	for _, r := range rows {
		saturated = saturated || r.Saturated > 0
	}
	switch {
	case judged:
		t.Head = append(t.Head, "SLOs")
	case reps && saturated:
		t.Head = append(t.Head, "saturated")
	}
	replaced := sw.replacedKeys()
	for i := range rows {
		r := &rows[i]
		rec := append([]string(nil), r.Point.Values...)
		rec = append(rec, rowLabel(axes, r, replaced[r.Variant]))
		for _, s := range r.Streams {
			if r.Split() {
				// An interval over replications that disagree describes none of them.
				rec = append(rec, withInterval(Estimate{Mean: s.P99.Mean, Lo: math.NaN()}, 2, "")+" split")
			} else {
				rec = append(rec, withInterval(s.P99, 2, ""))
			}
			if reps {
				rec = append(rec, rangeOf(s.P99))
			}
			rec = append(rec, strconv.FormatFloat(s.Subrequests.Mean, 'f', 1, 64))
		}
		rec = append(rec, fmt.Sprintf("%d: %s", r.HottestShard, units.Percent(r.HottestLoad.Mean, 1)),
			fmt.Sprintf("%d: %s", r.HottestNode, units.Percent(r.HottestNodeLoad.Mean, 1)),
			units.Share(r.ErrorRate.Mean, 2, units.KeepZero), sw.bindsCell(i))
		switch {
		case judged:
			rec = append(rec, verdictCell(r))
		case reps && saturated:
			cell := fmt.Sprintf("%d/%d", r.Saturated, len(r.Seeds))
			if r.Split() {
				cell = "SPLIT " + cell
			}
			rec = append(rec, cell)
		}
		t.Rows = append(t.Rows, rec)
	}
	return t
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

// Text writes the sweep table, and a line on what SPLIT means when a row is split.
func (sw *Sweep) Text(w io.Writer) {
	if len(sw.Rows) == 0 {
		return
	}
	sw.Table().Text(w)
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
	axes, rows := sw.Config.Axes, sw.Rows
	first := axes[0]
	l := plots.Lines{XLabel: first.Key, XTicks: first.Values, LogY: what == "p99"}
	var st string
	if si >= 0 {
		st = rows[0].Streams[si].Name
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
		l.Title += bandWords(r)
	}
	for i := range first.Values {
		l.Times = append(l.Times, float64(i))
	}
	index := map[string]int{}
	for ri := range rows {
		r := &rows[ri]
		// The series: the variant and the values of the other axes; a variant whose own
		// value of the first axis's key the axis replaces says so (its name may state
		// one value, "random salt 8", of a line drawn over many).
		name := r.Variant
		if slices.Contains(sw.replacedKeys()[r.Variant], first.Key) {
			name += " with " + first.Key + " varied"
		}
		if len(axes) > 1 {
			var parts []string
			for i, a := range axes[1:] {
				parts = append(parts, a.Key+"="+r.Point.Values[i+1])
			}
			name += " (" + strings.Join(parts, ", ") + ")"
		}
		k, ok := index[name]
		if !ok {
			k = len(l.Series)
			index[name] = k
			n := len(first.Values)
			s := plots.Series{Name: name, Y: nanSlice(n), Lo: nanSlice(n), Hi: nanSlice(n), Flag: make([]bool, n), Stopped: make([]bool, n), Failing: make([]bool, n), Notes: make([]string, n)}
			l.Series = append(l.Series, s)
		}
		x := 0
		for i, v := range first.Values {
			if v == r.Point.Values[0] {
				x = i
			}
		}
		s := &l.Series[k]
		var e Estimate
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
		lo, hi := band(e)
		s.Y[x], s.Lo[x], s.Hi[x] = scale*e.Mean, scale*lo, scale*hi
		s.Flag[x] = r.Split()
		s.Stopped[x] = r.Saturated > 0 // its figures cover the time before its stop
		// A latency past the error limit is of the completed requests only.
		s.Failing[x] = what == "p99" && r.ErrorRate.Defined() && r.ErrorRate.Mean > sw.Config.MaxErrors
		if s.Failing[x] {
			s.Notes[x] = units.Share(r.ErrorRate.Mean, 2, units.KeepZero) + " failed"
		}
	}
	return l
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
