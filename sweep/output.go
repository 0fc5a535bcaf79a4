package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/report"
)

// jsonEstimate is an Estimate in JSON: the 95% half-width is null for one replication,
// and both are null for an undefined estimate (a latency of a stream that completed
// nothing in some replication).
type jsonEstimate struct {
	Mean *float64 `json:"mean"`
	CI95 *float64 `json:"ci95"`
}

func (e Estimate) json(digits int) jsonEstimate {
	var j jsonEstimate
	if math.IsNaN(e.Mean) {
		return j
	}
	m := round(e.Mean, digits)
	j.Mean = &m
	if !math.IsNaN(e.Half) {
		h := round(e.Half, digits)
		j.CI95 = &h
	}
	return j
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// SweepJSON is sweep.json.
type SweepJSON struct {
	Scenario     string    `json:"scenario"`
	Vary         []string  `json:"vary"`
	Replications int       `json:"replications"`
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
func JSON(scenario string, axes []Axis, reps int, rows []Row) *SweepJSON {
	out := &SweepJSON{Scenario: scenario, Replications: reps, Rows: []jsonRow{}}
	for _, a := range axes {
		out.Vary = append(out.Vary, a.Key)
	}
	for _, r := range rows {
		j := jsonRow{Point: r.Point.Index, Values: map[string]string{}, Variant: r.Variant, Seeds: r.Seeds,
			HottestLoad: r.HottestLoad.json(4), Skew: r.Skew.json(3), ErrorRate: r.ErrorRate.json(6),
			HottestShard: r.HottestShard, HottestNode: r.HottestNode, HottestNodeLoad: r.HottestNodeLoad.json(4),
			Failures: failuresJSON(&r.Failures)}
		for i, a := range axes {
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
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// CSV writes sweep.csv: one row per point and variant; per stream, its statistics and
// their 95% half-widths (empty with one replication) in columns prefixed by its name. An
// undefined statistic (a latency of a stream that completed nothing) is an empty cell.
// The columns that came later (the hottest node, failures by cause, the streams' counts)
// follow all the others, so that scripts reading columns by position still work.
func CSV(w io.Writer, axes []Axis, rows []Row) error {
	cw := csv.NewWriter(w)
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
	}
	cw.Write(head)
	for _, r := range rows {
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
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// pm formats an estimate as "15.50 ±3.71", or "-" when it is undefined.
func pm(e Estimate, digits int) string {
	if math.IsNaN(e.Mean) {
		return "-"
	}
	s := strconv.FormatFloat(e.Mean, 'f', digits, 64)
	if !math.IsNaN(e.Half) {
		s += " ±" + strconv.FormatFloat(e.Half, 'f', digits, 64)
	}
	return s
}

// Text writes the sweep table: per point and variant, each stream's p99 (± its 95%
// half-width; "-" when a replication completed nothing) and fan-out, then the hottest
// shard's and the hottest node's load and the error rate over every stream and cause.
func Text(w io.Writer, axes []Axis, rows []Row) {
	if len(rows) == 0 {
		return
	}
	head := []string{}
	for _, a := range axes {
		head = append(head, a.Key)
	}
	head = append(head, "variant")
	for _, s := range rows[0].Streams {
		head = append(head, s.Name+" p99 ms", "fan-out")
	}
	head = append(head, "hottest shard", "hottest node", "errors")
	t := [][]string{head}
	for _, r := range rows {
		rec := append([]string(nil), r.Point.Values...)
		rec = append(rec, r.Variant)
		for _, s := range r.Streams {
			rec = append(rec, pm(s.P99, 2), strconv.FormatFloat(s.Subrequests.Mean, 'f', 1, 64))
		}
		rec = append(rec, strconv.FormatFloat(100*r.HottestLoad.Mean, 'f', 1, 64)+"%",
			fmt.Sprintf("%d: %s%%", r.HottestNode, strconv.FormatFloat(100*r.HottestNodeLoad.Mean, 'f', 1, 64)),
			strconv.FormatFloat(100*r.ErrorRate.Mean, 'f', 2, 64)+"%")
		t = append(t, rec)
	}
	writeTable(w, t, len(axes)+1)
}

func writeTable(w io.Writer, rows [][]string, left int) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// WriteFiles writes sweep.csv, sweep.json and, unless format is "", one chart per stream of
// p99 against the first varied key (one line per variant and combination of the other
// keys, with 95% error bars) and one of fan-out against it. It returns the files written.
func WriteFiles(dir, format, scenario string, axes []Axis, reps int, rows []Row) ([]string, error) {
	var files []string
	var buf bytes.Buffer
	if err := CSV(&buf, axes, rows); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "sweep.csv"), buf.Bytes()); err != nil {
		return nil, err
	}
	buf.Reset()
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(JSON(scenario, axes, reps, rows)); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "sweep.json"), buf.Bytes()); err != nil {
		return nil, err
	}
	files = append(files, filepath.Join(dir, "sweep.csv"), filepath.Join(dir, "sweep.json"))
	if format == "" || len(axes) == 0 || len(rows) == 0 {
		return files, nil
	}
	for si, st := range rows[0].Streams {
		for _, what := range []string{"p99", "fanout"} {
			l := chart(scenario, axes, rows, si, what)
			name := fmt.Sprintf("sweep-%s-%s.%s", what, report.Slug(st.Name), format)
			if err := plots.WriteLines(filepath.Join(dir, name), plots.Format(format), l); err != nil {
				return files, err
			}
			files = append(files, filepath.Join(dir, name))
		}
	}
	return files, nil
}

// chart is stream si's p99 (with error bars) or fan-out against the first varied key.
func chart(scenario string, axes []Axis, rows []Row, si int, what string) plots.Lines {
	first := axes[0]
	l := plots.Lines{XLabel: first.Key, XTicks: first.Values, LogY: what == "p99"}
	st := rows[0].Streams[si].Name
	if what == "p99" {
		l.Title = fmt.Sprintf("%s - %s: p99 latency against %s", scenario, st, first.Key)
		l.YLabel = "p99 latency (ms)"
	} else {
		l.Title = fmt.Sprintf("%s - %s: fan-out against %s", scenario, st, first.Key)
		l.YLabel = "partitions visited per request"
	}
	for i := range first.Values {
		l.Times = append(l.Times, float64(i))
	}
	index := map[string]int{}
	for _, r := range rows {
		// The series: the variant and the values of the other axes.
		name := r.Variant
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
			s := plots.Series{Name: name, Y: nanSlice(n)}
			if what == "p99" {
				s.Lo, s.Hi = nanSlice(n), nanSlice(n)
			}
			l.Series = append(l.Series, s)
		}
		x := 0
		for i, v := range first.Values {
			if v == r.Point.Values[0] {
				x = i
			}
		}
		s := &l.Series[k]
		e := r.Streams[si].Partitions
		if what == "p99" {
			e = r.Streams[si].P99
			s.Lo[x], s.Hi[x] = e.Mean-e.Half, e.Mean+e.Half
		}
		s.Y[x] = e.Mean
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

// CapacityJSON is capacity.json.
type CapacityJSON struct {
	Scenario  string        `json:"scenario"`
	SLOs      []string      `json:"slos"`
	MaxErrors float64       `json:"max_errors"`
	Rows      []capacityRow `json:"rows"`
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
}

// CapacityResults converts capacity answers to capacity.json's content.
func CapacityResults(scenario string, axes []Axis, c CapacityConfig, res []Capacity) *CapacityJSON {
	out := &CapacityJSON{Scenario: scenario, MaxErrors: c.MaxErrors, Rows: []capacityRow{}}
	for _, s := range c.SLOs {
		out.SLOs = append(out.SLOs, s.Text)
	}
	for _, r := range res {
		row := capacityRow{Point: r.Point.Index, Values: map[string]string{}, Variant: r.Variant,
			Multiple: round(r.Multiple, 4), Binding: r.Binding, Reason: r.Reason, AtMultiple: map[string]string{},
			Evaluations: r.Evaluations}
		if r.Multiple > 0 {
			e := round(r.AtErrors, 6)
			row.ErrorRate = &e
		}
		for i, a := range axes {
			row.Values[a.Key] = r.Point.Values[i]
		}
		if !math.IsNaN(r.Failed) {
			f := round(r.Failed, 4)
			row.FailedAt = &f
		}
		for i, s := range c.SLOs {
			if i < len(r.At) {
				row.AtMultiple[s.Text] = statValue(s.Stat, r.At[i])
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// CapacityText writes the capacity table: per point and variant the largest multiple,
// what it measured there, and what bound first above it.
func CapacityText(w io.Writer, axes []Axis, c CapacityConfig, res []Capacity) {
	head := []string{}
	for _, a := range axes {
		head = append(head, a.Key)
	}
	head = append(head, "variant", "largest multiple")
	for _, s := range c.SLOs {
		head = append(head, s.Stream+" "+s.Stat.String()+" there")
	}
	head = append(head, "errors there", "binds first", "why")
	t := [][]string{head}
	for _, r := range res {
		rec := append([]string(nil), r.Point.Values...)
		mult := strconv.FormatFloat(r.Multiple, 'f', 3, 64)
		switch {
		case r.Multiple == 0:
			mult = "< " + strconv.FormatFloat(minMultiple, 'f', 4, 64)
		case math.IsNaN(r.Failed):
			mult = ">= " + mult
		}
		rec = append(rec, r.Variant, mult)
		for i, s := range c.SLOs {
			v := "-"
			if i < len(r.At) {
				v = statValue(s.Stat, r.At[i])
			}
			rec = append(rec, v)
		}
		binding := r.Binding
		if binding == "" {
			binding = "nothing up to the cap"
		}
		errs := "-"
		if r.Multiple > 0 {
			errs = strconv.FormatFloat(100*r.AtErrors, 'f', 2, 64) + "%"
		}
		rec = append(rec, errs, binding, r.Reason)
		t = append(t, rec)
	}
	writeTable(w, t, len(axes)+1)
}

// statValue formats what an SLO's statistic measured: "12.35 ms", or "0.25%" for an error
// rate.
func statValue(st metrics.Statistic, x float64) string {
	if st == metrics.ErrorRate {
		return strconv.FormatFloat(100*x, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + " ms"
}
