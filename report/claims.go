package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// ClaimResult is one of a story's claims beside the run's figure for it: Says is the
// claim's figure as the story gives it ("about 10,000/s", "at most 2x"), Measured the
// run's ("-" when the run cannot say: its variant did not run, or the p99 never passed
// the threshold), Value the measured number (for a clock time, seconds from the start;
// null when not measured), Agrees whether it bears the claim out (null when not
// measured), Note what the run adds in its own words and Why the scenario's explanation
// of a difference, shown when they disagree. Partial: the run of its variant (or of its
// base) was interrupted, so the figure and the verdict cover only the time it ran.
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
	Partial  bool     `json:"partial,omitempty"`
}

// Claims measures each of the scenario's claims on the runs (metrics' measures) and says
// whether the run bears it out.
func Claims(sc *metrics.Scenario, runs []Run) []ClaimResult {
	byName := map[string]*sim.Result{}
	for _, run := range runs {
		byName[run.Variant.Name] = run.Result
	}
	var out []ClaimResult
	for _, c := range sc.Claims {
		cr := ClaimResult{Text: c.Text, Measure: c.Measure, Variant: c.VariantName, Base: c.BaseName, Stream: c.Stream, Measured: "-"}
		unit := claimUnit(sc, c)
		cr.Says = claimSays(c, unit)
		r, rb := byName[c.VariantName], byName[c.BaseName]
		if r == nil || c.Measure == "p99_ratio" && rb == nil {
			cr.Note = "not measured: its variant did not run"
			out = append(out, cr)
			continue
		}
		v, note := metrics.MeasureClaim(&c, r, rb, sc.Window, func(t sim.Time) string { return units.Clock(sc.Start, t, units.TimeOfDay) })
		cr.Note = note
		if v != nil {
			cr.Value = ptrTo(units.Round(*v, 6))
			cr.Measured = unit(*v)
			ok := metrics.Agrees(&c, *v)
			cr.Agrees = &ok
			cr.Partial = r.Partial || rb != nil && rb.Partial
			if !ok {
				cr.Why = c.Why
			}
		}
		out = append(out, cr)
	}
	return out
}

// claimSays is claim c's figure as the story gives it: "about 10,000/s", "at most 2x";
// a claim whose figure is exact (within = "0%", a shard's share, a p99) says no "about".
func claimSays(c metrics.Claim, unit func(float64) string) string {
	says := map[string]string{"about": "about ", "at_most": "at most ", "at_least": "at least "}[c.Agree] + unit(c.Value)
	exact := c.Agree == "about" && (c.Time && c.WithinTime == 0 || !c.Time && c.Within == 0)
	if c.Measure == "top_shard_share" || c.Measure == "p99" || exact {
		says = strings.Replace(says, "about ", "", 1)
	}
	return says
}

// claimUnit returns how claim c's figures are written.
func claimUnit(sc *metrics.Scenario, c metrics.Claim) func(float64) string {
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
		return func(x float64) string { return metrics.Ms(x) + " ms" }
	}
	return func(x float64) string { return fmt.Sprintf("%.3gx", x) } // p99_ratio
}

// claimTable is the claims as a table: what the story says (and its figure), what the
// run measures (where, and in which variant), whether they agree, and why they differ.
func claimTable(cs []ClaimResult) *table {
	t := &table{head: []string{"the story says", "the run measures", "agrees", "why they differ"}, left: 4}
	for _, c := range cs {
		agree := "-"
		if c.Agrees != nil {
			agree = map[bool]string{true: "yes", false: "no"}[*c.Agrees]
			if c.Partial {
				agree += " (partial run)"
			}
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
	verdicts, width := make([]string, len(cs)), 13
	for i, c := range cs {
		verdicts[i] = "not measured"
		if c.Agrees != nil {
			verdicts[i] = map[bool]string{true: "holds", false: "does not hold"}[*c.Agrees]
			if c.Partial { // from the part of the run before the interruption
				verdicts[i] = "partial, " + verdicts[i]
			}
		}
		width = max(width, len(verdicts[i]))
	}
	for i, c := range cs {
		run := strings.TrimPrefix(c.Note, "not measured: ")
		if c.Agrees != nil {
			run = c.Measured
			if c.Variant != "" {
				run += " in " + c.Variant
			}
		}
		fmt.Fprintf(w, "   %-*s  %s (%s): %s\n", width, verdicts[i], c.Text, c.Says, run)
	}
}

func ptrTo(x float64) *float64 { return &x }
