package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
	"github.com/shardsim/shardsim/units"
)

// ClaimResult is one of a story's claims beside the run's figure for it: Says is the
// claim's figure as the story gives it ("about 10,000/s", "at most 2x"), Measured the
// run's ("-" when the run cannot say: its variant did not run, or the p99 never passed
// the threshold), Value the measured number (for a clock time, seconds from the start;
// null when not measured), Agrees whether it bears the claim out (null when not
// measured), Note what the run adds in its own words and Why the scenario's explanation
// of a difference, shown when they disagree.
type ClaimResult struct {
	Text     string   `json:"text"`
	Measure  string   `json:"measure"`
	Variant  string   `json:"variant"`
	Base     string   `json:"base,omitempty"`
	Stream   string   `json:"stream,omitempty"`
	Says     string   `json:"says"`
	Measured string   `json:"measured"`
	Value    *float64 `json:"value"`
	Agrees   *bool    `json:"agrees"`
	Note     string   `json:"note,omitempty"`
	Why      string   `json:"why,omitempty"`
}

// Claims measures each of the scenario's claims on the runs (metrics' measures) and says
// whether the run bears it out.
func Claims(sc *spec.Scenario, runs []Run) []ClaimResult {
	byName := map[string]*sim.Result{}
	for _, run := range runs {
		byName[run.Variant.Name] = run.Result
	}
	var out []ClaimResult
	for _, c := range sc.Claims {
		cr := ClaimResult{Text: c.Text, Measure: c.Measure, Variant: c.VariantName, Base: c.BaseName, Stream: c.Stream, Measured: "-"}
		unit := claimUnit(sc, c)
		cr.Says = map[string]string{"about": "about ", "at_most": "at most ", "at_least": "at least "}[c.Agree] + unit(c.Value)
		if c.Measure == "top_shard_share" || c.Measure == "p99" {
			cr.Says = strings.Replace(cr.Says, "about ", "", 1)
		}
		r, rb := byName[c.VariantName], byName[c.BaseName]
		if r == nil || c.Measure == "p99_ratio" && rb == nil {
			cr.Note = "not measured: its variant did not run"
			out = append(out, cr)
			continue
		}
		v, note := measureClaim(sc, c, r, rb)
		cr.Note = note
		if v != nil {
			cr.Value = ptrTo(units.Round(*v, 6))
			cr.Measured = unit(*v)
			ok := agrees(c, *v)
			cr.Agrees = &ok
			if !ok {
				cr.Why = c.Why
			}
		}
		out = append(out, cr)
	}
	return out
}

// measureClaim returns the run's figure for claim c (nil when there is none) and a note
// on it.
func measureClaim(sc *spec.Scenario, c spec.ClaimSpec, r, rb *sim.Result) (*float64, string) {
	i := c.StreamIndex
	if c.Measure != "top_shard_share" && (i < 0 || i >= len(r.Streams) || c.Measure == "p99_ratio" && i >= len(rb.Streams)) {
		return nil, "not measured: the variant has no such stream"
	}
	switch c.Measure {
	case "offered_rate", "completed_rate":
		w := sim.Time(int(c.At/sc.Window)) * sc.Window
		if c.At < 0 {
			return nil, fmt.Sprintf("not measured: the run starts after %s", units.Clock(sc.Start, c.At, units.TimeOfDay))
		}
		if c.At >= r.Duration {
			return nil, fmt.Sprintf("not measured: the run ends before %s", units.Clock(sc.Start, c.At, units.TimeOfDay))
		}
		return metrics.RateAt(r, i, c.At, c.Measure == "completed_rate"), fmt.Sprintf("%s in the window of %s", c.Stream, units.Clock(sc.Start, w, units.TimeOfDay))
	case "p99_crossing":
		t, fine, ok := metrics.P99Crossing(r, i, c.Threshold.Millis())
		if !ok {
			return nil, fmt.Sprintf("%s's p99 never passed %s", c.Stream, c.Threshold)
		}
		grain := sc.Window
		if fine {
			grain = r.Detail.Window
		}
		return ptrTo(t.Seconds()), fmt.Sprintf("%s's p99 passed %s in a %s window ending then", c.Stream, c.Threshold, units.Duration(grain))
	case "first_retry":
		t, ok := metrics.FirstRetry(r, i)
		if !ok {
			return nil, fmt.Sprintf("%s sent no retry", c.Stream)
		}
		return ptrTo(t.Seconds()), fmt.Sprintf("%s's first retries, in the window of %s", c.Stream, units.Clock(sc.Start, t, units.TimeOfDay))
	case "top_shard_share":
		share, shard, even, ok := metrics.TopRowShare(r)
		if !ok {
			return nil, "no row was written"
		}
		return ptrTo(100 * share), fmt.Sprintf("shard %d; %d even shards would write %.1f%% each", shard, len(r.Shards), 100*even)
	case "partitions":
		return ptrTo(metrics.Partitions(r, i)), fmt.Sprintf("%s, per request", c.Stream)
	case "p99":
		p := metrics.StreamP99(r, i)
		if p == nil {
			return nil, fmt.Sprintf("no request of %s completed", c.Stream)
		}
		return p, fmt.Sprintf("%s over the run", c.Stream)
	case "p99_ratio":
		a, b := metrics.StreamP99(r, i), metrics.StreamP99(rb, i)
		if a == nil || b == nil || *b == 0 {
			return nil, fmt.Sprintf("no p99 of %s in one of the variants", c.Stream)
		}
		return ptrTo(*a / *b), fmt.Sprintf("%s's p99 %s ms against %s ms in %s", c.Stream, fmtMs(*a), fmtMs(*b), c.BaseName)
	}
	panic("report: unknown claim measure " + c.Measure)
}

// claimUnit returns how claim c's figures are written.
func claimUnit(sc *spec.Scenario, c spec.ClaimSpec) func(float64) string {
	switch c.Measure {
	case "offered_rate", "completed_rate":
		return func(x float64) string { return units.Count(int64(math.Round(x))) + "/s" }
	case "p99_crossing", "first_retry":
		return func(x float64) string { return units.Clock(sc.Start, sim.Time(math.Round(x*1e9)), units.TimeOfDay) }
	case "top_shard_share":
		return func(x float64) string { return fmt.Sprintf("%.1f%%", x) }
	case "partitions":
		return func(x float64) string {
			if x == math.Round(x) {
				return units.Count(int64(x))
			}
			return fmt.Sprintf("%.1f", x)
		}
	case "p99":
		return func(x float64) string { return fmtMs(x) + " ms" }
	}
	return func(x float64) string { return fmt.Sprintf("%.3gx", x) } // p99_ratio
}

// agrees reports whether the measured value m bears claim c out: within its tolerance of
// the claim's value (about), or on the right side of it (at_most, at_least).
func agrees(c spec.ClaimSpec, m float64) bool {
	v := c.Value
	switch c.Agree {
	case "at_most":
		return m <= v
	case "at_least":
		return m >= v
	}
	if c.Time {
		return math.Abs(m-v) <= c.WithinTime.Seconds()
	}
	return math.Abs(m-v) <= c.Within*math.Abs(v)
}

// claimTable is the claims as a table: what the story says (and its figure), what the
// run measures (where, and in which variant), whether they agree, and why they differ.
func claimTable(cs []ClaimResult) *table {
	t := &table{head: []string{"the story says", "the run measures", "agrees", "why they differ"}, left: 4}
	for _, c := range cs {
		agree := "-"
		if c.Agrees != nil {
			agree = map[bool]string{true: "yes", false: "no"}[*c.Agrees]
		}
		measured := c.Measured
		if c.Note != "" {
			measured += " (" + c.Note + ")"
		}
		if c.Variant != "" && c.Measured != "-" {
			measured += " in " + c.Variant
		}
		t.add(fmt.Sprintf("%s (%s)", c.Text, c.Says), measured, agree, c.Why)
	}
	return t
}

// claimsText writes the claims for the terminal, one line each after the variants: the
// verdict, what the story says with its figure, and the run's figure with its variant (or
// why there is none). The same ClaimResult values as the claims' table in report.md; that
// table also says where each figure was measured and why a claim does not hold.
func claimsText(w io.Writer, cs []ClaimResult) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nclaims (the story's figure, then the run's; report.md says where and why):")
	for _, c := range cs {
		verdict, run := "not measured", strings.TrimPrefix(c.Note, "not measured: ")
		if c.Agrees != nil {
			verdict = map[bool]string{true: "holds", false: "does not hold"}[*c.Agrees]
			run = c.Measured
			if c.Variant != "" {
				run += " in " + c.Variant
			}
		}
		fmt.Fprintf(w, "   %-13s  %s (%s): %s\n", verdict, c.Text, c.Says, run)
	}
}

func ptrTo(x float64) *float64 { return &x }
