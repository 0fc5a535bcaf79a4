package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FitOptions name the scenario Fit writes.
type FitOptions struct {
	Name   string // scenario name ([a-z0-9-]+)
	Source string // the log's file name, for the description
	// Points bounds the rate schedule's points (default 48).
	Points int
}

// Fit writes a synthetic scenario (TOML) that reproduces the analyzed log without it: two
// streams, reads and writes, whose schedules follow the log's rate over time (points at
// the centres of equal groups of the rate windows, each the group's mean rate, times the
// operation's share of the log), and one key field drawn from a Zipf law with the fitted
// exponent over the log's distinct keys. The most frequent keys are listed in a comment by
// rank: rank r of the Zipf field stands for the r-th of them.
func Fit(a *Analysis, o FitOptions) []byte {
	var b strings.Builder
	dur := math.Max(math.Ceil(a.DurationS), 1)
	window := math.Max(1, math.Round(dur/60))
	s := a.Keys.ZipfS
	n := int64(math.Max(math.Round(a.Keys.Distinct), 1))
	recs := math.Max(float64(a.Records), 1)
	readShare := float64(a.Reads) / recs
	fmt.Fprintf(&b, "name        = %q\n", o.Name)
	fmt.Fprintf(&b, "description = %q\n", fmt.Sprintf("Fitted by shardsim fit to %s: %d records over %s s, %.1f%% reads, keys drawn from a Zipf law with s = %.3f over %d keys.",
		o.Source, a.Records, strconv.FormatFloat(a.DurationS, 'f', 1, 64), 100*readShare, s, n))
	fmt.Fprintf(&b, "seed        = 1\nduration    = %q\nwindow      = %q\n\n", secs(dur), secs(window))
	b.WriteString("[cluster]\nnodes   = 4\ncores   = 4\nnetwork = \"0.5ms\"\n\n")
	b.WriteString("[table]\nname = \"fitted\"\n[table.fields]\n")
	fmt.Fprintf(&b, "key = { gen = \"zipf\", n = %d, s = %s }\n", n, strconv.FormatFloat(round(s, 4), 'f', -1, 64))
	fmt.Fprintf(&b, "# The log's most frequent keys; rank r of key stands for the r-th (Zipf fit over the top %d ranks,\n# Kolmogorov-Smirnov distance %.4f):\n", a.Keys.ZipfRanks, a.Keys.ZipfKS)
	for i, t := range a.Keys.Top {
		fmt.Fprintf(&b, "#   %d. %q  %.2f%%\n", i+1, t.Key, 100*t.Share)
	}
	b.WriteString("\n[keyspace]\nscheme = \"hash\"\nshards = 16\nkey    = [\"key\"]\n")
	sched := schedulePoints(a, o.Points)
	for _, st := range []struct {
		name, op string
		share    float64
	}{{"reads", "read", readShare}, {"writes", "write", 1 - readShare}} {
		if st.share == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n[[streams]]\nname     = %q\nop       = %q\ncost     = \"0.5ms\"\nschedule = [\n", st.name, st.op)
		for _, p := range sched {
			fmt.Fprintf(&b, "  { at = %q, rate = %s },\n", secs(p.TS), strconv.FormatFloat(round(p.PerS*st.share, 3), 'f', -1, 64))
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

func secs(s float64) string { return strconv.FormatFloat(round(s, 3), 'f', -1, 64) + "s" }

// schedulePoints groups the rate windows into at most points groups: a point at the
// start, one at the centre of each group with its mean rate, and one at the end.
func schedulePoints(a *Analysis, points int) []RatePoint {
	if points <= 0 {
		points = 48
	}
	r := a.Rate
	if len(r) == 0 {
		return []RatePoint{{TS: 0, PerS: 0}}
	}
	group := (len(r) + points - 1) / points
	var out []RatePoint
	end := a.DurationS
	for i := 0; i < len(r); i += group {
		j := min(i+group, len(r))
		lo := r[i].TS
		hi := math.Min(r[j-1].TS+a.RateWindow, math.Max(end, lo+1e-3))
		var count float64
		for k := i; k < j; k++ {
			w := a.RateWindow
			if k == len(r)-1 {
				w = math.Max(math.Min(end-r[k].TS, a.RateWindow), 1e-3)
			}
			count += r[k].PerS * w
		}
		out = append(out, RatePoint{TS: (lo + hi) / 2, PerS: count / (hi - lo)})
	}
	first, last := out[0], out[len(out)-1]
	if first.TS > 0 {
		out = append([]RatePoint{{TS: 0, PerS: first.PerS}}, out...)
	}
	if end > last.TS {
		out = append(out, RatePoint{TS: end, PerS: last.PerS})
	}
	// Schedule points must be in strictly increasing time order at millisecond precision.
	dedup := out[:1]
	for _, p := range out[1:] {
		if round(p.TS, 3) > round(dedup[len(dedup)-1].TS, 3) {
			dedup = append(dedup, p)
		}
	}
	return dedup
}
