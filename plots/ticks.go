package plots

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// labelEvery returns the step k ≥ 1 at which to label n items (indices 0, k, 2k, …) so
// that at most max labels show; k is 1, 2 or 5 times a power of ten, the smallest that
// fits. The first item is always labelled. max < 1 counts as 1.
func labelEvery(n, max int) int {
	if max < 1 {
		max = 1
	}
	if n <= max {
		return 1
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			k := m * p
			if (n+k-1)/k <= max {
				return k
			}
		}
	}
}

// labelIndices is 0, step, 2·step, … below n.
func labelIndices(n, step int) []int {
	if step < 1 {
		step = 1
	}
	var out []int
	for i := 0; i < n; i += step {
		out = append(out, i)
	}
	return out
}

// niceSeconds are the tick intervals on a time axis: round clock durations.
var niceSeconds = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
	1, 2, 5, 10, 15, 20, 30,
	60, 2 * 60, 5 * 60, 10 * 60, 15 * 60, 20 * 60, 30 * 60,
	3600, 2 * 3600, 3 * 3600, 4 * 3600, 6 * 3600, 12 * 3600,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400,
}

// windowStep returns the step in windows at which to label n windows of windowSeconds
// each so that at most max labels show: a round duration (1 min, 5 min, 15 min, 1 h…)
// that is a whole number of windows when there is one not much coarser than
// labelEvery's step, else labelEvery's step.
func windowStep(n int, windowSeconds float64, max int) int {
	if max < 1 {
		max = 1
	}
	if n <= max {
		return 1
	}
	fallback := labelEvery(n, max)
	if windowSeconds > 0 && finite(windowSeconds) {
		for _, d := range niceSeconds {
			k := d / windowSeconds
			ki := math.Round(k)
			if ki < 1 || math.Abs(k-ki) > 1e-9*k {
				continue
			}
			if int(math.Ceil(float64(n)/ki)) <= max {
				if ki > 2*float64(fallback) {
					break // round, but far fewer labels than fit
				}
				return int(ki)
			}
		}
	}
	return fallback
}

// fitLabels is how many labels of the widest of labels fit side by side in span, with
// a gap of 1.5 em between neighbours, capped at max.
func fitLabels(sty text.Style, labels []string, span vg.Length, max int) int {
	var w vg.Length
	for _, l := range labels {
		w = vg.Length(math.Max(float64(w), float64(sty.Width(l))))
	}
	w += 1.5 * sty.Font.Size
	n := int(span / w)
	if n > max {
		n = max
	}
	if n < 1 {
		n = 1
	}
	return n
}

// fixedTicks is a plot.Ticker returning a precomputed tick list.
type fixedTicks []plot.Tick

// Ticks implements plot.Ticker.
func (t fixedTicks) Ticks(min, max float64) []plot.Tick { return t }

// timeTicks are ticks every round interval between t0 and t1 seconds, at most max
// labelled, labelled with label.
func timeTicks(t0, t1 float64, max int, label func(float64) string) []plot.Tick {
	span := t1 - t0
	if span <= 0 {
		return []plot.Tick{{Value: t0, Label: label(t0)}}
	}
	step := niceSeconds[len(niceSeconds)-1]
	for _, d := range niceSeconds {
		if math.Floor(t1/d)-math.Ceil(t0/d)+1 <= float64(max) {
			step = d
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(t0/step - 1e-9); k*step <= t1+1e-9*step; k++ {
		v := k * step
		ts = append(ts, plot.Tick{Value: v, Label: label(v)})
	}
	return ts
}

// defaultTimeLabel formats seconds since t=0 as h:mm:ss, or m:ss under an hour.
func defaultTimeLabel(s float64) string {
	neg := s < 0
	d := time.Duration(math.Round(math.Abs(s)) * float64(time.Second))
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	out := fmt.Sprintf("%d:%02d", m, sec)
	if h > 0 {
		out = fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// percentTicks are ticks at round percentages from 0 to max (a fraction, 1 = 100%), at
// most about six labelled.
func percentTicks(max float64) []plot.Tick {
	top := max * 100
	step := 5.0
	for _, s := range []float64{5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000} {
		step = s
		if top/s <= 6 {
			break
		}
	}
	var ts []plot.Tick
	for v := 0.0; v <= top+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v / 100, Label: fmtPercent(v)})
	}
	return ts
}

func fmtPercent(pct float64) string { return fmtNum(pct) + "%" }

// fmtNum formats v with at most three significant digits and no exponent.
func fmtNum(v float64) string {
	if v == 0 || !finite(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	mag := math.Floor(math.Log10(math.Abs(v)))
	prec := int(2 - mag)
	if prec < 0 {
		prec = 0
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// logTicks is a plot.Ticker for log axes: labelled ticks at 1, 2 and 5 times powers of
// ten (1, 2, 3, 5 or evenly spaced round values on short ranges; only powers of ten, or
// every k-th, on wide ones), labelled
// as plain numbers, and unlabelled ticks at the other integers of each decade.
type logTicks struct{}

// logMaxLabels is the most labelled ticks on a log axis.
const logMaxLabels = 12

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		if min > 0 {
			return []plot.Tick{{Value: min, Label: fmtNum(min)}}
		}
		return nil
	}
	r := logRange{min: min, max: max, lo: math.Floor(math.Log10(min)), hi: math.Ceil(math.Log10(max))}
	vs := r.labelled()
	var ts []plot.Tick
	for _, v := range vs {
		ts = append(ts, plot.Tick{Value: v, Label: fmtNum(v)})
	}
	return append(ts, r.minor(vs)...)
}

// logRange is the span [min, max] of a log axis, and the powers of ten around it, 10^lo
// to 10^hi.
type logRange struct{ min, max, lo, hi float64 }

// in reports whether v is on the axis (within rounding).
func (r logRange) in(v float64) bool { return v >= r.min*(1-1e-9) && v <= r.max*(1+1e-9) }

// multiples are the values m·10^e on the axis, m of set, for every every-th power e from lo.
func (r logRange) multiples(set []float64, every float64) []float64 {
	var vs []float64
	for e := r.lo; e <= r.hi; e++ {
		if math.Mod(e-r.lo, every) != 0 {
			continue
		}
		for _, m := range set {
			if v := m * math.Pow(10, e); r.in(v) {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// labelled are the values to label: 1, 2 and 5 times the powers of ten; when more than
// logMaxLabels, the powers of ten only, or every k-th; when fewer than 3, 1, 2, 3 and 5
// times them, or under about half a decade evenly spaced round values, which read best.
func (r logRange) labelled() []float64 {
	vs := r.multiples([]float64{1, 2, 5}, 1)
	switch {
	case len(vs) > logMaxLabels:
		for every := 1.0; ; every++ {
			if vs = r.multiples([]float64{1}, every); len(vs) <= logMaxLabels {
				return vs
			}
		}
	case len(vs) < 3:
		if vs = r.multiples([]float64{1, 2, 3, 5}, 1); len(vs) < 3 {
			vs = vs[:0]
			for _, t := range linearTicks(r.min, r.max) {
				if t.Value > 0 {
					vs = append(vs, t.Value)
				}
			}
		}
	}
	return vs
}

// minor are unlabelled ticks at the integers of each decade on the axis that are not
// among labelled.
func (r logRange) minor(labelled []float64) []plot.Tick {
	var ts []plot.Tick
	for e := r.lo; e <= r.hi; e++ {
		for m := 1.0; m <= 9; m++ {
			v := m * math.Pow(10, e)
			if r.in(v) && !slices.ContainsFunc(labelled, func(l float64) bool { return math.Abs(l-v) <= 1e-9*v }) {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	return ts
}

// numberTicks are linearTicks labelled with as many decimals as their step needs, so
// that a narrow range (1.280, 1.285, 1.290) does not print the same label twice.
func numberTicks(min, max float64) []plot.Tick {
	ts := linearTicks(min, max)
	if len(ts) < 2 {
		return ts
	}
	step := ts[1].Value - ts[0].Value
	dec := max0(int(math.Ceil(-math.Log10(step) - 1e-9)))
	if m := step / math.Pow(10, -float64(dec)); math.Abs(m-math.Round(m)) > 1e-6 {
		dec++ // a step of 2.5 times a power of ten
	}
	for i := range ts {
		ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', dec, 64)
	}
	return ts
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// linearTicks are ticks at 1, 2, 2.5 or 5 times a power of ten covering [min, max], at
// most about six labelled.
func linearTicks(min, max float64) []plot.Tick {
	span := max - min
	if !(span > 0) {
		return []plot.Tick{{Value: min, Label: fmtNum(min)}}
	}
	raw := span / 6
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+1e-9*step; k++ {
		v := k * step
		if math.Abs(v) < 1e-12*step {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: fmtNum(v)})
	}
	return ts
}
