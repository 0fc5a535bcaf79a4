package replicas

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// JSON is an Estimate in JSON. ci95 is Student's t half-width around the mean;
// lo95 and hi95 bound the interval the tables and charts show (see Estimate); all are
// null with one replication, and every field is null for an undefined figure (a latency
// of a stream that completed nothing in some replication).
type JSON struct {
	Mean   *float64 `json:"mean"`
	CI95   *float64 `json:"ci95"`
	Lo95   *float64 `json:"lo95"`
	Hi95   *float64 `json:"hi95"`
	Median *float64 `json:"median"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

func (e Estimate) JSON(digits int) JSON {
	opt := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		r := units.Round(x, digits)
		return &r
	}
	return JSON{Mean: opt(e.Mean), CI95: opt(e.Half), Lo95: opt(e.Lo), Hi95: opt(e.Hi),
		Median: opt(e.Median), Min: opt(e.Min), Max: opt(e.Max)}
}

// JSONBottleneck is a metrics.Bottleneck as summary.json writes it; agree counts the
// replications that name it.
type JSONBottleneck struct {
	metrics.BottleneckJSON
	Agree int `json:"agree"`
}

func BottleneckJSON(b metrics.Bottleneck, agree int) JSONBottleneck {
	return JSONBottleneck{BottleneckJSON: b.JSON(), Agree: agree}
}

// FailuresJSON is a per-cause array of estimated counts in JSON, keyed by cause.
func FailuresJSON(f *[len(metrics.Causes)]Estimate) map[string]JSON {
	out := map[string]JSON{}
	for _, c := range metrics.Causes {
		out[c.String()] = f[c].JSON(3)
	}
	return out
}

func Num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Spread is the CSV cells of an estimate's interval and range: lo95, hi95, median, min, max.
func Spread(e Estimate) []string {
	return []string{Num(e.Lo), Num(e.Hi), Num(e.Median), Num(e.Min), Num(e.Max)}
}

// SpreadCols are the CSV columns Spread fills, in its order.
var SpreadCols = []string{"lo95", "hi95", "median", "min", "max"}

// Short formats x with about three significant digits, without an exponent.
func Short(x float64) string {
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

// WithInterval formats an estimate as "15.50 [11.8, 19.2]": the mean with digits decimals
// and the 95% interval; the mean alone with one replication, "-" when undefined.
func WithInterval(e Estimate, digits int, unit string) string {
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
		s += " [" + Short(e.Lo) + ", " + Short(e.Hi) + "]"
	}
	return s
}

// band is the bar a chart draws around an estimate: its 95% interval, or with two runs,
// whose interval says nothing (WithInterval), their range.
func Band(e Estimate) (lo, hi float64) {
	if e.N == 2 {
		return e.Min, e.Max
	}
	return e.Lo, e.Hi
}

// BandWords says what the bars of a chart over r replications are.
func BandWords(r int) string {
	if r == 2 {
		return " (mean and range of 2 seeds)"
	}
	return fmt.Sprintf(" (mean and 95%% interval of %d seeds)", r)
}

// RangeOf formats an estimate's median and range: "15.1 (12.0–19.4)"; "-" when undefined.
func RangeOf(e Estimate) string {
	if !e.Defined() {
		return "-"
	}
	return Short(e.Median) + " (" + Short(e.Min) + "–" + Short(e.Max) + ")"
}

// BottleneckShort is a bottleneck in a table cell: "cpu node 15 (189% peak)".
func BottleneckShort(b metrics.Bottleneck, agree, of int) string {
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
	case b.Resource == metrics.Waiting:
		s = b.WaitName + " of " + b.Stream
		notes = append(notes, units.Percent(b.Lock, 0)+" waited")
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
