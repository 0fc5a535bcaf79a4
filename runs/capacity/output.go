package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/units"
)

// Report is a finished capacity search: what was asked, and an answer per point
// and variant.
type Report struct {
	Scenario string
	Config   Config
	Rows     []Answer
}

// ReportJSON is capacity.json.
type ReportJSON struct {
	Scenario     string   `json:"scenario"`
	SLOs         []string `json:"slos"`
	MaxErrors    float64  `json:"max_errors"`
	Require      string   `json:"require"`
	Replications int      `json:"replications"`
	Tolerance    float64  `json:"tolerance"`
	// MaxUtilization is the ceiling on the busiest node's load at peak (1: none).
	MaxUtilization float64       `json:"max_utilization"`
	Rows           []capacityRow `json:"rows"`
	// Answer is the closing lines' decisions as data, one per variant and value of every
	// axis but the first.
	Answer []jsonAnswer `json:"answer"`
}

// jsonAnswer is one closing line's decision: the values chosen (null: none of those
// tried carries the plan under every replication), their multiple, and what binds above
// it (or, with no choice, at the largest value tried).
type jsonAnswer struct {
	Group    string            `json:"group,omitempty"`
	Carries  bool              `json:"carries"`
	Values   map[string]string `json:"values"`
	Variant  string            `json:"variant"`
	Multiple *float64          `json:"multiple"`
	Binds    string            `json:"binds"`
	Reason   string            `json:"reason"`
	Line     string            `json:"line"`
}

type capacityRow struct {
	Point       int               `json:"point"`
	Values      map[string]string `json:"values"`
	Variant     string            `json:"variant"`
	Multiple    float64           `json:"multiple"`
	Binding     string            `json:"binding"`
	Reason      string            `json:"reason"`
	FailedAt    *float64          `json:"failed_at"`
	AtMultiple  map[string]string `json:"at_multiple"`
	ErrorRate   *float64          `json:"error_rate"` // at Multiple, over every stream and cause; null when nothing passed
	Evaluations int               `json:"evaluations"`
	// Added with the spread and the check.
	MeanAnswer     float64       `json:"mean_answer"`
	AllAnswer      float64       `json:"all_answer"`
	PerReplication []float64     `json:"per_replication"`
	Spread         replicas.JSON `json:"spread"`
	At             *jsonProbe    `json:"at"`
	Above          *jsonProbe    `json:"above"`
	Check          *jsonProbe    `json:"check"`
	CheckAbove     *jsonProbe    `json:"check_above"`
	Probes         []jsonProbe   `json:"probes"`
	Runs           int           `json:"runs"`
	Samples        []jsonSample  `json:"samples"`
	// BelowNoLoad: an SLO is below the latency with no load, so no multiple meets it
	// (Answer.NoLoad); reason says with which figures.
	BelowNoLoad bool `json:"below_no_load,omitempty"`
	// Unsettled: the budget could not settle the runs above the multiple, which is then a
	// floor and not an answer; OfferedAt is the multiple at which the utilization law
	// offers a node all its cores (null where the law does not apply); SimSeconds is the
	// simulated time of every run the searches made.
	Unsettled  bool     `json:"unsettled,omitempty"`
	OfferedAt  *float64 `json:"offered_at,omitempty"`
	SimSeconds float64  `json:"sim_seconds"`
}

// jsonSample is one simulation: stats are keyed by the SLO as written, null when the
// stream completed nothing.
type jsonSample struct {
	Multiple float64             `json:"multiple"`
	Seed     uint64              `json:"seed"`
	OK       bool                `json:"ok"`
	Stats    map[string]*float64 `json:"stats"`
}

// jsonProbe is a Probe: stats are keyed by the SLO as written.
type jsonProbe struct {
	Multiple        float64                  `json:"multiple"`
	Seeds           []uint64                 `json:"seeds"`
	OK              bool                     `json:"ok"` // over the replications together
	Passes          int                      `json:"passes"`
	Split           bool                     `json:"split"`
	Binding         string                   `json:"binding"`
	Stats           map[string]replicas.JSON `json:"stats"`
	ErrorRate       replicas.JSON            `json:"error_rate"`
	Failures        map[string]replicas.JSON `json:"failures"`
	HottestNode     int                      `json:"hottest_node"`
	HottestNodeLoad replicas.JSON            `json:"hottest_node_utilization"`
	HottestShard    int                      `json:"hottest_shard"`
	HottestLoad     replicas.JSON            `json:"hottest_shard_utilization"`
	Bottleneck      replicas.JSONBottleneck  `json:"bottleneck"`
	Saturated       int                      `json:"saturated"`
}

func (cr *Report) probeJSON(p *Probe) *jsonProbe {
	if p == nil {
		return nil
	}
	j := &jsonProbe{Multiple: p.Multiple, Seeds: p.Seeds, OK: p.Assessment.OK, Passes: p.Passes, Split: p.Split(),
		Binding: p.Assessment.Binding, Stats: map[string]replicas.JSON{}, ErrorRate: p.ErrorRate.JSON(6), Failures: replicas.FailuresJSON(&p.Failures),
		HottestNode: p.HottestNode, HottestNodeLoad: p.NodeLoad.JSON(4), HottestShard: p.HottestShard, HottestLoad: p.ShardLoad.JSON(4), Bottleneck: replicas.BottleneckJSON(p.Bottleneck, p.Agree), Saturated: p.Saturated}
	for i, s := range cr.Config.SLOs {
		j.Stats[s.Text] = p.Stats[i].JSON(6)
	}
	return j
}

// JSON returns capacity.json's content.
func (cr *Report) JSON() *ReportJSON {
	c := &cr.Config
	out := &ReportJSON{Scenario: cr.Scenario, MaxErrors: c.MaxErrors, Require: c.Require.String(), Replications: c.Replications,
		Tolerance: c.Tolerance, MaxUtilization: 1, Rows: []capacityRow{}, Answer: []jsonAnswer{}}
	if u := c.MaxUtilization; u > 0 && u < 1 {
		out.MaxUtilization = u
	}
	out.Answer = cr.answersJSON()
	for _, s := range c.SLOs {
		out.SLOs = append(out.SLOs, s.Text)
	}
	for i := range cr.Rows {
		out.Rows = append(out.Rows, cr.rowJSON(&cr.Rows[i]))
	}
	return out
}

// answersJSON is capacity.json's answer: one decision a group of rows, as the closing line
// says it.
func (cr *Report) answersJSON() []jsonAnswer {
	c := &cr.Config
	out := []jsonAnswer{}
	for _, d := range cr.decisions() {
		a := jsonAnswer{Group: d.label, Variant: d.rows[0].Variant, Binds: d.binding, Reason: d.reason, Line: d.line}
		if d.chose != nil {
			m := d.chose.Multiple
			a.Carries, a.Multiple, a.Variant, a.Values = true, &m, d.chose.Variant, map[string]string{}
			for i, ax := range c.Axes {
				a.Values[ax.Key] = d.chose.Point.Values[i]
			}
		}
		out = append(out, a)
	}
	return out
}

// rowJSON is one row of capacity.json.
func (cr *Report) rowJSON(r *Answer) capacityRow {
	c := &cr.Config
	row := capacityRow{Point: r.Point.Index, Values: map[string]string{}, Variant: r.Variant,
		Multiple: r.Multiple, Binding: r.Binding, Reason: r.Reason, AtMultiple: map[string]string{},
		Evaluations: r.Evaluations, MeanAnswer: r.MeanAnswer, AllAnswer: r.AllAnswer,
		Spread: r.Spread.JSON(4), At: cr.probeJSON(r.At), Above: cr.probeJSON(r.Above), Check: cr.probeJSON(r.Check),
		CheckAbove: cr.probeJSON(r.CheckAbove), Probes: []jsonProbe{}, Runs: r.Runs, BelowNoLoad: r.NoLoad,
		Unsettled: r.Unsettled, SimSeconds: units.Round(r.SimSeconds, 3)}
	if !math.IsInf(r.OfferedAt, 1) && r.OfferedAt > 0 {
		o := units.Round(r.OfferedAt, 6)
		row.OfferedAt = &o
	}
	for _, m := range r.PerReplication {
		row.PerReplication = append(row.PerReplication, m)
	}
	if r.At != nil {
		e := units.Round(r.At.ErrorRate.Mean, 6)
		row.ErrorRate = &e
		for i, s := range c.SLOs {
			if st := r.At.Stats[i]; st.Defined() {
				row.AtMultiple[s.Text] = statValue(s.Stat, st.Mean)
			}
		}
	}
	for i, a := range c.Axes {
		row.Values[a.Key] = r.Point.Values[i]
	}
	if !math.IsNaN(r.Failed) {
		f := r.Failed
		row.FailedAt = &f
	}
	for i := range r.Probes {
		row.Probes = append(row.Probes, *cr.probeJSON(&r.Probes[i]))
	}
	row.Samples = cr.samplesJSON(r.Samples)
	return row
}

// samplesJSON is a row's samples as capacity.json writes them.
func (cr *Report) samplesJSON(samples []Sample) []jsonSample {
	out := []jsonSample{}
	for _, sm := range samples {
		js := jsonSample{Multiple: sm.Multiple, Seed: sm.Seed, OK: sm.OK, Stats: map[string]*float64{}}
		for i, s := range cr.Config.SLOs {
			var v *float64
			if x := sm.Stats[i]; x != nil {
				y := units.Round(*x, 6)
				v = &y
			}
			js.Stats[s.Text] = v
		}
		out = append(out, js)
	}
	return out
}

// statValue formats what an SLO's statistic measured: "12.35 ms", or "0.25%" for an error
// rate.
func statValue(st metrics.Statistic, x float64) string {
	if st == metrics.ErrorRate {
		return strconv.FormatFloat(100*x, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + " ms"
}

// statEstimate formats an SLO's statistic over replications: "47.81 ms [41.2, 55.0]".
func statEstimate(st metrics.Statistic, e replicas.Estimate) string {
	if !e.Defined() {
		return "-"
	}
	if st == metrics.ErrorRate {
		s := units.Share(e.Mean, 2, units.KeepZero)
		if e.N == 2 {
			s += " [n/a: 2 runs]" // replicas.WithInterval
		} else if !math.IsNaN(e.Lo) {
			s += " [" + replicas.Short(100*e.Lo) + "%, " + replicas.Short(100*e.Hi) + "%]"
		}
		return s
	}
	return replicas.WithInterval(e, 2, " ms")
}

// multipleCell writes an answer: "1.141", ">= 64.000" at the cap, "< 0.0010" when even the
// smallest multiple fails.
func multipleCell(m, failed float64) string {
	switch {
	case m == 0:
		return "< " + strconv.FormatFloat(minMultiple, 'f', 4, 64)
	case math.IsNaN(failed):
		return ">= " + exactMultiple(m)
	}
	return exactMultiple(m)
}

// Tables are the answer table and the check table: a row of each per point and variant.
func (cr *Report) Tables() (answer, check *report.Table) {
	answer, check, _ = cr.tables()
	return answer, check
}

// tableWidth is the most columns a table of the text output takes: wider ones are
// written in parts (report.Table.Fit), and the reasons of what binds go below the answer
// table as numbered notes.
const tableWidth = 160

// tables are the answer and check tables and the notes their "binds first" cells point
// at ("[1] create_order p99 65.50 ms >= 50.00 ms"), a reason written once however many
// rows give it.
func (cr *Report) tables() (answer, check *report.Table, notes []string) {
	left := len(cr.Config.Axes) + 1
	answer = &report.Table{Left: left, Head: cr.answerHead()}
	check = &report.Table{Left: left, Head: cr.checkHead()}
	seen := map[string]int{}
	for i := range cr.Rows {
		r := &cr.Rows[i]
		note := 0
		if r.Reason != "" {
			if note = seen[r.Reason]; note == 0 {
				notes = append(notes, r.Reason)
				note = len(notes)
				seen[r.Reason] = note
			}
		}
		answer.Rows = append(answer.Rows, cr.answerRow(r, note))
		check.Rows = append(check.Rows, cr.checkRow(r))
	}
	for i, n := range notes {
		notes[i] = fmt.Sprintf("[%d] %s", i+1, n)
	}
	return answer, check, notes
}

// answerHead is the answer table's head: the varied keys, the variant and its answer
// (with replications, the seeds' own answers and the other requirement's), each SLO's
// statistic there, and the hottest shard and node, the errors and what binds.
func (cr *Report) answerHead() []string {
	c := &cr.Config
	head := append(axisKeys(c.Axes), "variant", "multiple")
	if c.Replications > 1 {
		other := "every seed"
		if c.Require == RequireAll {
			other = "mean"
		}
		head = append(head, "seeds: median (range)", "95% CI", other)
	}
	head = append(head, sloHeads(c.SLOs, " there")...)
	return append(head, "hottest shard", "hottest node", "errors", "binds first", "resource")
}

// checkHead is the check table's head: the varied keys, the variant and the fresh seed,
// then at the answer and just above it the multiple, each SLO's statistic, the hottest
// node and whether it meets every SLO.
func (cr *Report) checkHead() []string {
	slos := cr.Config.SLOs
	head := append(axisKeys(cr.Config.Axes), "variant", "seed", "at")
	head = append(append(head, sloHeads(slos, "")...), "hottest node", "meets", "just above")
	return append(append(head, sloHeads(slos, " above")...), "hottest node above", "meets above")
}

// axisKeys are the varied keys, a column each.
func axisKeys(axes []sweep.Axis) []string {
	var keys []string
	for _, a := range axes {
		keys = append(keys, a.Key)
	}
	return keys
}

// sloHeads are the columns of the SLOs' statistics: "STREAM STAT" and suffix.
func sloHeads(slos []sweep.SLO, suffix string) []string {
	var head []string
	for _, s := range slos {
		head = append(head, s.Stream+" "+s.Stat.String()+suffix)
	}
	return head
}

// answerRow is r's row of the answer table (answerHead); note, when above 0, is the
// number of the note that says why its binding binds.
func (cr *Report) answerRow(r *Answer, note int) []string {
	c := &cr.Config
	rec := append(append([]string(nil), r.Point.Values...), r.Variant, answerCell(r))
	if c.Replications > 1 {
		rec = append(rec, cr.seedCells(r)...)
	}
	for i, s := range c.SLOs {
		v := "-"
		if r.At != nil {
			v = statEstimate(s.Stat, r.At.Stats[i])
			if r.At.Split() {
				v += fmt.Sprintf(" SPLIT %d/%d", r.At.Passes, len(r.At.Seeds))
			}
		}
		rec = append(rec, v)
	}
	shard, node, errs := "-", "-", "-"
	if r.At != nil {
		shard = fmt.Sprintf("%d: %s", r.At.HottestShard, units.Percent(r.At.ShardLoad.Mean, 1))
		node = fmt.Sprintf("%d: %s, %s peak", r.At.HottestNode, units.Percent(r.At.NodeLoad.Mean, 1), units.Percent(r.At.PeakLoad.Mean, 1))
		errs = units.Share(r.At.ErrorRate.Mean, 2, units.KeepZero)
	}
	binding := r.Binding
	if binding == "" {
		binding = "nothing up to the cap"
	}
	if note > 0 {
		binding += fmt.Sprintf(" [%d]", note)
	}
	return append(rec, shard, node, errs, binding, resourceCell(r))
}

// answerCell is r's "multiple" cell: the answer (multipleCell), or "none" when the SLO is
// below the latency with no load, or "unsettled": not an answer, the budget could not
// settle the runs above it.
func answerCell(r *Answer) string {
	switch {
	case r.Unsettled:
		return "unsettled"
	case r.NoLoad:
		return "none"
	}
	return multipleCell(r.Multiple, r.Failed)
}

// seedCells are the cells of the replications' own answers: their median and range, their
// 95% interval, and the answer of the requirement not chosen.
func (cr *Report) seedCells(r *Answer) []string {
	other := r.AllAnswer
	if cr.Config.Require == RequireAll {
		other = r.MeanAnswer
	}
	iv := "-"
	if r.Spread.N == 2 {
		iv = "n/a: 2 runs" // replicas.WithInterval
	} else if !math.IsNaN(r.Spread.Lo) {
		iv = "[" + strconv.FormatFloat(r.Spread.Lo, 'f', 3, 64) + ", " + strconv.FormatFloat(r.Spread.Hi, 'f', 3, 64) + "]"
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	return []string{f(r.Spread.Median) + " (" + f(r.Spread.Min) + "–" + f(r.Spread.Max) + ")", iv, exactMultiple(other)}
}

// resourceCell is what binds: the resource behind the failure just above the answer, else
// at it; none when the SLO is below the latency with no load.
func resourceCell(r *Answer) string {
	if r.NoLoad {
		return "none: below the no-load latency"
	}
	res := "-"
	for _, p := range []*Probe{r.At, r.Above} {
		if p != nil {
			res = replicas.BottleneckShort(p.Bottleneck, p.Agree, len(p.Seeds))
		}
	}
	return res
}

// checkRow is r's row of the check table (checkHead).
func (cr *Report) checkRow(r *Answer) []string {
	seed := "-"
	for _, p := range []*Probe{r.Check, r.CheckAbove} {
		if p != nil {
			seed = strconv.FormatUint(p.Seeds[0], 10)
		}
	}
	rec := append(append([]string(nil), r.Point.Values...), r.Variant, seed)
	for _, p := range []*Probe{r.Check, r.CheckAbove} {
		rec = append(rec, cr.checkCells(p)...)
	}
	return rec
}

// checkCells are one check's cells: its multiple, each SLO's statistic, its hottest node
// and whether it meets every SLO; "-" each where there was no check.
func (cr *Report) checkCells(p *Probe) []string {
	slos := cr.Config.SLOs
	if p == nil {
		cells := make([]string, len(slos)+3)
		for i := range cells {
			cells[i] = "-"
		}
		return cells
	}
	cells := []string{exactMultiple(p.Multiple)}
	for i, s := range slos {
		v := "-"
		if p.Stats[i].Defined() {
			v = statValue(s.Stat, p.Stats[i].Mean)
		}
		cells = append(cells, v)
	}
	meets := "yes"
	if !p.Assessment.OK {
		meets = "no: " + p.Assessment.Binding
	}
	return append(cells, fmt.Sprintf("%d: %s", p.HottestNode, units.Percent(p.NodeLoad.Mean, 1)), meets)
}

// heading is the line above the tables.
func (cr *Report) heading() string {
	c := &cr.Config
	var slos []string
	for _, s := range c.SLOs {
		slos = append(slos, s.Text)
	}
	how := "the run"
	if c.Replications > 1 {
		how = fmt.Sprintf("the mean over %d replications", c.Replications)
		if c.Require == RequireAll {
			how = fmt.Sprintf("every one of %d replications", c.Replications)
		}
	}
	ceiling := ""
	if u := c.MaxUtilization; u > 0 && u < 1 {
		ceiling = " and the busiest node at most " + units.Percent(u, 0) + " of its cores at peak"
	}
	return fmt.Sprintf("capacity of %s: the largest multiple of every rate (load_factor) at which %s meets %s with errors <= %s%s",
		cr.Scenario, how, strings.Join(slos, " and "), units.Percent(c.MaxErrors, 2), ceiling)
}

// terms says where the closing line's words are defined.
const terms = "(multiple, headroom, ceiling, binds, SPLIT: docs/capacity.md, \"Terms\")"

const checkHeading = "check: one run at a seed no search used, at the answer and at the multiple just above it where the search saw it fail"

// Text writes the answer table, its notes and the check table, each table no wider than
// tableWidth where it can be.
func (cr *Report) Text(w io.Writer) {
	a, k, notes := cr.tables()
	fmt.Fprintln(w, cr.heading())
	fmt.Fprintln(w)
	a.FitText(w, tableWidth)
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, checkHeading)
	fmt.Fprintln(w)
	k.FitText(w, tableWidth)
	cr.footnote(w)
}

// Markdown writes the tables as Markdown.
func (cr *Report) Markdown(w io.Writer) {
	a, k, notes := cr.tables()
	fmt.Fprintln(w, escape.MarkdownText(cr.heading()))
	fmt.Fprintln(w)
	a.Markdown(w)
	fmt.Fprintln(w)
	for _, n := range notes {
		fmt.Fprintln(w, escape.MarkdownText(n)+"  ")
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, checkHeading+":")
	fmt.Fprintln(w)
	k.Markdown(w)
	// The notes name variants and points: each line is prose with names in it.
	var b strings.Builder
	cr.footnote(&b)
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if t := strings.TrimSuffix(l, "\n"); t != "" {
			l = escape.MarkdownText(t) + l[len(t):]
		}
		io.WriteString(w, l)
	}
}

func (cr *Report) footnote(w io.Writer) {
	for _, r := range cr.Rows {
		if r.At != nil && r.At.Split() {
			fmt.Fprintf(w, "\nSPLIT k/n: at the answer only k of n replications meet every SLO alone; the mean passes, the seeds disagree (--require all, the default, gives the answer every replication meets).\n")
			break
		}
	}
	for _, r := range cr.Rows {
		if r.NoLoad {
			where := r.Variant
			if len(r.Point.Values) > 0 {
				where = sweep.Describe(cr.Config.Axes, r.Point) + ", " + r.Variant
			}
			fmt.Fprintf(w, "\n%s, %s: %s.\n", where, r.Binding, r.Reason)
		}
	}
	if notes := cr.settleNotes(); len(notes) > 0 {
		fmt.Fprintln(w)
		for _, l := range notes {
			fmt.Fprintln(w, l)
		}
	}
	if warn := cr.checkWarnings(); len(warn) > 0 {
		fmt.Fprintln(w)
		for _, l := range warn {
			fmt.Fprintln(w, l)
		}
	}
	if lines := cr.closing(); len(lines) > 0 {
		fmt.Fprintln(w)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w, terms)
	}
}

// settleNotes says, in one line, which answers' runs measured fewer than runner.SettleRuns
// relaxation times of the hottest node's queue (metrics.Relaxation): runs that start empty
// and stop before that queue settles understate the tail latency there, so those answers
// lean high by more than their interval, which covers only the seeds' spread, says.
func (cr *Report) settleNotes() []string {
	var rows []string
	measured := math.Inf(1)
	for _, r := range cr.Rows {
		p := r.At
		if p == nil || p.Measured <= 0 || p.Settle*runner.SettleRuns <= p.Measured {
			continue
		}
		where := r.Variant
		if len(r.Point.Values) > 0 {
			where += " at " + strings.Join(r.Point.Values, ", ")
		}
		settle := "never settles"
		if !math.IsInf(p.Settle, 1) {
			settle = "about " + units.Seconds(p.Settle, units.Short)
		}
		rows = append(rows, fmt.Sprintf("%s (%s busy, %s)", where, units.Percent(p.NodeLoad.Mean, 1), settle))
		measured = min(measured, p.Measured)
	}
	if len(rows) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("NOTE: a queue near full takes long to settle, and these answers' hottest nodes settle slowly (their relaxation time): %s; "+
		"the runs measured %s after their warmup, fewer than %d of those, starting empty, so they understate the tail there and the answers lean high; "+
		"a --duration of %d relaxation times or more, with a warmup of a few, gives steadier ones",
		strings.Join(rows, ", "), units.Seconds(measured, units.Short), runner.SettleRuns, runner.SettleRuns)}
}

// checkWarnings says, for each answer that its own check failed (one run at a fresh
// seed, at the answer), that the answer did not hold there: a rerun of it may fail.
func (cr *Report) checkWarnings() []string {
	var out []string
	for _, r := range cr.Rows {
		p := r.Check
		if p == nil || p.Assessment.OK || len(p.Seeds) == 0 {
			continue
		}
		where := r.Variant
		if len(r.Point.Values) > 0 {
			where += " at " + strings.Join(r.Point.Values, ", ")
		}
		out = append(out, fmt.Sprintf("WARNING: the answer for %s (multiple %s) did not hold at seed %d: %s; the seeds disagree there, so raise -r or --duration before trusting it",
			where, exactMultiple(p.Multiple), p.Seeds[0], p.Assessment.Binding))
	}
	return out
}

// CSV writes capacity.csv: one row per point and variant.
func (cr *Report) CSV(w io.Writer) error {
	c := &cr.Config
	cw := escape.NewCSVWriter(w)
	head := []string{"point"}
	for _, a := range c.Axes {
		head = append(head, a.Key)
	}
	head = append(head, "variant", "require", "multiple", "mean_answer", "all_answer", "failed_at", "binding", "reason",
		"per_replication", "spread_median", "spread_min", "spread_max", "spread_lo95", "spread_hi95")
	probeCols := func(prefix string) {
		head = append(head, prefix+"multiple", prefix+"ok", prefix+"passes")
		for _, s := range c.SLOs {
			head = append(head, prefix+s.Text, prefix+s.Text+"_lo95", prefix+s.Text+"_hi95")
		}
		head = append(head, prefix+"error_rate")
		for _, cause := range metrics.Causes {
			head = append(head, prefix+cause.String())
		}
		head = append(head, prefix+"hottest_shard", prefix+"hottest_shard_utilization", prefix+"hottest_node", prefix+"hottest_node_utilization", prefix+"bottleneck", prefix+"bottleneck_node")
	}
	for _, p := range []string{"at_", "above_", "check_", "check_above_"} {
		probeCols(p)
	}
	head = append(head, "evaluations", "runs")
	cw.Write(head)
	for _, r := range cr.Rows {
		rec := []string{strconv.Itoa(r.Point.Index)}
		rec = append(rec, r.Point.Values...)
		var per []string
		for _, m := range r.PerReplication {
			per = append(per, replicas.Num(m))
		}
		rec = append(rec, r.Variant, c.Require.String(), replicas.Num(r.Multiple), replicas.Num(r.MeanAnswer), replicas.Num(r.AllAnswer),
			replicas.Num(r.Failed), r.Binding, r.Reason, strings.Join(per, " "),
			replicas.Num(r.Spread.Median), replicas.Num(r.Spread.Min), replicas.Num(r.Spread.Max), replicas.Num(r.Spread.Lo), replicas.Num(r.Spread.Hi))
		for _, p := range []*Probe{r.At, r.Above, r.Check, r.CheckAbove} {
			if p == nil {
				rec = append(rec, make([]string, 3+3*len(c.SLOs)+7+len(metrics.Causes))...)
				continue
			}
			rec = append(rec, replicas.Num(p.Multiple), strconv.FormatBool(p.Assessment.OK), strconv.Itoa(p.Passes))
			for i := range c.SLOs {
				e := p.Stats[i]
				rec = append(rec, replicas.Num(e.Mean), replicas.Num(e.Lo), replicas.Num(e.Hi))
			}
			node := ""
			if p.Bottleneck.Node >= 0 {
				node = strconv.Itoa(p.Bottleneck.Node)
			}
			rec = append(rec, replicas.Num(p.ErrorRate.Mean))
			for _, f := range p.Failures {
				rec = append(rec, replicas.Num(f.Mean))
			}
			rec = append(rec, strconv.Itoa(p.HottestShard), replicas.Num(units.Round(p.ShardLoad.Mean, 4)), strconv.Itoa(p.HottestNode), replicas.Num(units.Round(p.NodeLoad.Mean, 4)), p.Bottleneck.Resource.String(), node)
		}
		rec = append(rec, strconv.Itoa(r.Evaluations), strconv.Itoa(r.Runs))
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteFiles writes capacity.json, capacity.csv and, unless format is "", a chart per SLO
// of its statistic against the multiple. It returns the files written.
func (cr *Report) WriteFiles(dir, format string) ([]string, error) {
	var files []string
	b, err := json.MarshalIndent(cr.JSON(), "", "  ")
	b = escape.JSON(b)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "capacity.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := cr.CSV(&buf); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "capacity.csv"), buf.Bytes()); err != nil {
		return nil, err
	}
	files = append(files, filepath.Join(dir, "capacity.json"), filepath.Join(dir, "capacity.csv"))
	if format == "" {
		return files, nil
	}
	// One file name per stream, distinct even where two streams' names differ in case
	// alone, and per statistic.
	var names []string
	slugOf := map[string]string{}
	for _, s := range cr.Config.SLOs {
		if _, ok := slugOf[s.Stream]; !ok {
			slugOf[s.Stream] = ""
			names = append(names, s.Stream)
		}
	}
	for i, sl := range report.Slugs(names) {
		slugOf[names[i]] = sl
	}
	for i, s := range cr.Config.SLOs {
		l, ok := cr.chart(i)
		if !ok {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("capacity-%s-%s.%s", slugOf[s.Stream], s.Stat, format))
		if err := plots.WriteLines(path, plots.Format(format), l); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// chart is SLO i's statistic against the multiple: a line per point and variant through
// the multiples judged with every replication (mean and 95% interval, split multiples
// circled, multiples where a replication saturated and stopped crossed), every
// simulation's own value as a small ring, the SLO's bound, and each answer marked. ok is false when no multiple has a
// value to draw.
func (cr *Report) chart(i int) (plots.Lines, bool) {
	c := &cr.Config
	s := c.SLOs[i]
	l := plots.Lines{Numeric: true, XLabel: "load multiple (load_factor)", LogY: s.Stat != metrics.ErrorRate, SLO: s.Bound,
		Title: fmt.Sprintf("%s - %s %s against the load multiple", cr.Scenario, s.Stream, s.Stat)}
	if s.Stat == metrics.ErrorRate {
		l.YLabel, l.SLO = "error rate (%)", 100*s.Bound
	} else {
		l.YLabel = s.Stat.String() + " latency (ms)"
	}
	if r := c.Replications; r > 1 {
		l.Title += replicas.BandWords(r)
	}
	span := &multiples{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, r := range cr.Rows {
		ser := cr.series(&r, i, span)
		if len(ser.X) == 0 {
			continue
		}
		if r.Multiple > 0 {
			l.Marks = append(l.Marks, plots.Mark{X: r.Multiple, Series: len(l.Series), Label: exactMultiple(r.Multiple)})
		}
		l.Series = append(l.Series, ser)
	}
	if len(l.Series) == 0 {
		return l, false
	}
	lo, hi := span.lo, span.hi
	l.Times = []float64{lo, hi}
	if lo == hi {
		l.Times = l.Times[:1]
	}
	l.LogX = hi/lo > 8
	return l, true
}

// multiples is the range of the multiples a chart shows.
type multiples struct{ lo, hi float64 }

func (m *multiples) add(x float64) { m.lo, m.hi = min(m.lo, x), max(m.hi, x) }

// series is row r's line of SLO i's chart: a point per probe, with its band, and a dot
// per run; span grows to hold them.
func (cr *Report) series(r *Answer, i int, span *multiples) plots.Series {
	c := &cr.Config
	s := c.SLOs[i]
	name := r.Variant
	if len(c.Axes) > 0 {
		name = sweep.Describe(c.Axes, r.Point)
		if !cr.oneVariant() {
			name += " " + r.Variant
		}
	}
	ser := plots.Series{Name: name}
	scale := 1.0
	if s.Stat == metrics.ErrorRate {
		scale = 100
	}
	for _, p := range r.Probes {
		if p.Stats[i].Defined() {
			cr.point(&ser, &p, i, scale)
			span.add(p.Multiple)
		}
	}
	for _, sm := range r.Samples {
		if x := sm.Stats[i]; x != nil && len(r.Probes) > 0 {
			ser.Dots = append(ser.Dots, plots.Point{X: sm.Multiple, Y: scale * *x})
			span.add(sm.Multiple)
		}
	}
	return ser
}

// point adds probe p to ser: SLO i's statistic, scaled, with its band, and whether its
// replications split, saturated or failed more requests than MaxErrors.
func (cr *Report) point(ser *plots.Series, p *Probe, i int, scale float64) {
	e := p.Stats[i]
	ser.X = append(ser.X, p.Multiple)
	ser.Y = append(ser.Y, scale*e.Mean)
	blo, bhi := replicas.Band(e)
	ser.Lo = append(ser.Lo, scale*blo)
	ser.Hi = append(ser.Hi, scale*bhi)
	ser.Flag = append(ser.Flag, p.Split())
	// A saturated run stopped early: its value covers the time before the stop, not a
	// measure of the multiple, and is crossed as such.
	ser.Stopped = append(ser.Stopped, p.Saturated > 0)
	// Past the error limit the latency is of the completed requests only (a full queue's
	// rejections cap it, and the line goes flat): boxed as such.
	failing := cr.Config.SLOs[i].Stat != metrics.ErrorRate && p.ErrorRate.Defined() && p.ErrorRate.Mean > cr.Config.MaxErrors
	ser.Failing = append(ser.Failing, failing)
	note := ""
	if failing {
		note = units.Share(p.ErrorRate.Mean, 2, units.KeepZero) + " failed"
	}
	ser.Notes = append(ser.Notes, note)
}

// oneVariant reports whether every row is of the same variant.
func (cr *Report) oneVariant() bool {
	for _, r := range cr.Rows {
		if r.Variant != cr.Rows[0].Variant {
			return false
		}
	}
	return true
}
