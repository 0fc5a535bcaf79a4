package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shardsim/shardsim/units"
)

// Statistic is what an SLO bounds.
type Statistic uint8

// The statistics an SLO may bound: latencies in milliseconds, or the error rate.
const (
	Mean Statistic = iota
	P50
	P90
	P95
	P99
	P999
	Max
	ErrorRate // failed / offered over every cause, a fraction 0..1
)

var statNames = [...]string{Mean: "mean", P50: "p50", P90: "p90", P95: "p95", P99: "p99", P999: "p999", Max: "max", ErrorRate: "errors"}

// String is the statistic's name as an SLO writes it: mean, p50, ..., max, errors.
func (s Statistic) String() string {
	if int(s) < len(statNames) {
		return statNames[s]
	}
	return "?"
}

// SLO is one objective: Stat of Stream's requests must stay below Bound (milliseconds for a
// latency, a fraction 0..1 for the error rate).
type SLO struct {
	Stream string
	Stat   Statistic
	Bound  float64
	Text   string // as written
}

// ParseSLO reads "STREAM:p99<50ms": a stream, a statistic (mean, p50, p90, p95, p99, p999
// or max) and a duration; or "STREAM:errors<0.1%" (a percentage or a fraction).
func ParseSLO(s string) (SLO, error) {
	stream, rest, ok := strings.Cut(s, ":")
	stat, bound, ok2 := strings.Cut(rest, "<")
	stream, stat, bound = strings.TrimSpace(stream), strings.TrimSpace(stat), strings.TrimSpace(bound)
	if !ok || !ok2 || stream == "" {
		return SLO{}, fmt.Errorf("--slo %q: want STREAM:p99<50ms", s)
	}
	slo := SLO{Stream: stream, Stat: 255, Text: s}
	for i, n := range statNames {
		if n == stat {
			slo.Stat = Statistic(i)
		}
	}
	switch slo.Stat {
	case 255:
		return SLO{}, fmt.Errorf("--slo %q: unknown statistic %q (want p50, p90, p95, p99, p999, mean, max or errors)", s, stat)
	case ErrorRate:
		f, err := parseFraction(bound)
		if err != nil || f <= 0 {
			return SLO{}, fmt.Errorf("--slo %q: the bound %q must be a positive fraction such as 0.1%% or 0.001", s, bound)
		}
		slo.Bound = f
	default:
		d, err := units.ParseDuration(bound)
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("--slo %q: the bound %q must be a positive duration such as 50ms", s, bound)
		}
		slo.Bound = float64(d) / float64(time.Millisecond)
	}
	return slo, nil
}

// parseFraction reads "0.1%" or "0.001" as a fraction 0..1.
func parseFraction(s string) (float64, error) {
	t, scale := s, 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 0.01
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 || v*scale > 1 {
		return 0, fmt.Errorf("%q: want a fraction such as 0.1%% or 0.001", s)
	}
	return v * scale, nil
}

// ParseFraction reads "0.1%" or "0.001" as a fraction 0..1.
func ParseFraction(s string) (float64, error) { return parseFraction(strings.TrimSpace(s)) }

// Value returns the statistic of stream s: a latency in ms (nil when nothing completed) or
// its error rate (never nil).
func (st Statistic) Value(s *Stream) *float64 {
	l := &s.Latency
	switch st {
	case Mean:
		return l.Mean
	case P50:
		return l.P50
	case P90:
		return l.P90
	case P95:
		return l.P95
	case P99:
		return l.P99
	case P999:
		return l.P999
	case Max:
		return l.Max
	case ErrorRate:
		return ptr(s.ErrorRate)
	}
	return nil
}

// Verdict is the judgement of one SLO over one or more runs (replications).
type Verdict struct {
	SLO SLO
	OK  bool
	// Value is the statistic's mean over the runs; nil when a run has none (its stream
	// completed nothing) or none of the runs has the stream.
	Value *float64
	// Reason says why the SLO failed, in words; "" when it holds.
	Reason string
	// Severity orders failures: the statistic over its bound, +Inf for a stream that
	// completed nothing or a run that did not finish.
	Severity float64
}

// Judge judges an SLO over replicated runs of one design. It holds when every run covered
// its whole duration (none saturated or was interrupted), every run's migration or
// rebalance finished (Run.Unfinished), the stream completed at least one request in every
// run (for a latency), and the mean over the runs of the statistic is below the bound, over
// the whole run and, in a run with a migration, in each phase (before, during, after: over
// the windows wholly inside it, see PhaseStats; a phase without such a window in every run
// is not judged).
func Judge(slo SLO, runs []*Run) Verdict {
	v := Verdict{SLO: slo}
	var sum float64
	for _, r := range runs {
		switch {
		case r.Saturated:
			return v.fail(math.Inf(1), fmt.Sprintf("the run saturated at %.3gs (%d subrequests waiting)", r.SaturatedAt.Seconds(), r.Backlog))
		case r.Partial:
			return v.fail(math.Inf(1), fmt.Sprintf("the run was interrupted at %.3gs", r.Elapsed.Seconds()))
		}
		if why := r.Unfinished(); why != "" {
			return v.fail(math.Inf(1), why)
		}
		s := r.Stream(slo.Stream)
		if s == nil {
			return v.fail(math.Inf(1), fmt.Sprintf("the run has no stream %q", slo.Stream))
		}
		x := slo.Stat.Value(s)
		if x == nil {
			what := fmt.Sprintf("completed none of its %d requests", s.Offered)
			if s.Offered == 0 {
				what = "issued no request"
			}
			return v.fail(math.Inf(1), s.Name+" "+what)
		}
		sum += *x
	}
	if len(runs) == 0 {
		return v.fail(math.Inf(1), "no run to judge")
	}
	v.Value = ptr(sum / float64(len(runs)))
	if *v.Value < slo.Bound {
		// A migration's phases are judged each on its own: a whole-run figure can hide
		// the weeks of a backfill behind the calm before and after it.
		v, v.OK = judgePhases(v, slo, runs)
		return v
	}
	return v.fail(*v.Value/slo.Bound, fmt.Sprintf("%s %s %s >= %s", slo.Stream, slo.Stat, format(slo.Stat, *v.Value), format(slo.Stat, slo.Bound)))
}

func (v Verdict) fail(severity float64, reason string) Verdict {
	v.OK, v.Severity, v.Reason = false, severity, reason
	return v
}

// format writes a value of the statistic: "12.35 ms" or "1.25%".
func format(st Statistic, x float64) string {
	if st == ErrorRate {
		return fixed(100*x) + "%"
	}
	return fixed(x) + " ms"
}

// fixed writes x with two decimals, or three significant digits under 0.1 (a bound of
// 0.001 ms or 0.005% must not read as 0.00).
func fixed(x float64) string {
	if x != 0 && math.Abs(x) < 0.1 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// Assessment is the judgement of a set of SLOs and an error bound over replicated runs.
type Assessment struct {
	OK       bool
	Verdicts []Verdict // one per SLO, in order
	// ErrorRate is the mean over the runs of the error rate over every stream and cause,
	// a fraction 0..1; ErrorsOK says whether it stayed at or under the bound.
	ErrorRate float64
	ErrorsOK  bool
	// Binding names what failed worst: the text of an SLO, "errors", or "saturated" or
	// "interrupted" for a run that did not finish, or Unfinished for a run whose migration
	// or rebalance did not finish; "" when everything holds. Reason says why in words.
	Binding, Reason string
}

// Unfinished is the Binding of an assessment whose run's migration or rebalance did not
// finish by the end of the run: its SLOs are not judged on a change half made.
const Unfinished = "did not finish"

// Assess judges slos over replicated runs, and the run-wide error rate (every stream and
// cause) against maxErrors (a fraction 0..1). A run that saturated or was interrupted
// fails everything, and binds as "saturated" or "interrupted".
func Assess(slos []SLO, maxErrors float64, runs []*Run) Assessment {
	a := Assessment{OK: true}
	for _, r := range runs {
		a.ErrorRate += r.ErrorRate / float64(len(runs))
	}
	worst := 0.0
	for _, slo := range slos {
		v := Judge(slo, runs)
		a.Verdicts = append(a.Verdicts, v)
		if !v.OK {
			a.OK = false
			if v.Severity > worst || a.Binding == "" {
				worst, a.Binding, a.Reason = v.Severity, slo.Text, v.Reason
			}
		}
	}
	a.ErrorsOK = a.ErrorRate <= maxErrors
	if !a.ErrorsOK && a.OK {
		a.Binding, a.Reason = "errors", fmt.Sprintf("error rate %s > %s", format(ErrorRate, a.ErrorRate), format(ErrorRate, maxErrors))
	}
	a.OK = a.OK && a.ErrorsOK
	for _, r := range runs {
		switch {
		case r.Saturated:
			a.OK, a.Binding = false, "saturated"
			a.Reason = fmt.Sprintf("the run saturated at %.3gs (%d subrequests waiting)", r.SaturatedAt.Seconds(), r.Backlog)
			return a
		case r.Partial:
			a.OK, a.Binding, a.Reason = false, "interrupted", fmt.Sprintf("the run was interrupted at %.3gs", r.Elapsed.Seconds())
			return a
		}
	}
	for _, r := range runs {
		if why := r.Unfinished(); why != "" {
			a.OK, a.Binding, a.Reason = false, Unfinished, why
			return a
		}
	}
	return a
}

// DefaultCeiling is a planner's ceiling on the busiest node's load at peak, a fraction of
// its cores: capacity's and sweep's --max-utilization by default, and the line explain
// warns past (docs/capacity.md, "Headroom": why 0.85).
const DefaultCeiling = 0.85

// Ceiling is the Binding of an assessment whose busiest node ran past the utilization
// ceiling while everything else held (AssessWithin; docs/capacity.md, "Headroom").
const Ceiling = "ceiling"

// BusiestAtPeak returns the node whose busiest window was the busiest in r and that
// window's load, a fraction of its cores (Node.Peak): the figure the bottleneck's "cpu
// node N (P% peak)" gives. It is (-1, 0) for a run without nodes.
func BusiestAtPeak(r *Run) (node int, peak float64) {
	node = busiestNode(r.Nodes, func(n Node) float64 { return n.Peak })
	if node < 0 {
		return -1, 0
	}
	return node, r.Nodes[node].Peak
}

// AssessWithin is Assess with a ceiling on the busiest node's load at peak
// (BusiestAtPeak), a fraction 0..1 of its cores: where the load, averaged over the runs,
// is above it, the assessment fails and, where nothing else failed, binds as Ceiling. A
// ceiling of 0, or of 1 or more, is none: a node past its cores fails as saturated.
func AssessWithin(slos []SLO, maxErrors, ceiling float64, runs []*Run) Assessment {
	a := Assess(slos, maxErrors, runs)
	if ceiling <= 0 || ceiling >= 1 || len(runs) == 0 {
		return a
	}
	mean, node, most := 0.0, -1, -1.0
	for _, r := range runs {
		n, p := BusiestAtPeak(r)
		mean += p / float64(len(runs))
		if p > most {
			node, most = n, p
		}
	}
	if mean <= ceiling {
		return a
	}
	if a.OK {
		a.Binding = Ceiling
		a.Reason = fmt.Sprintf("node %d at %s of its cores at peak, over the ceiling of %s", node, units.Percent(mean, 1), units.Percent(ceiling, 0))
	}
	a.OK = false
	return a
}
