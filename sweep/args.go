package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/scenarios"
)

// Axis is one varied key and its values (TOML text, as --set takes them).
type Axis struct {
	Key    string
	Values []string
}

// ParseVary reads "KEY=V1,V2,...". Values are split at commas outside brackets, braces and
// quotes, so TOML arrays and tables can be values: keyspace.key=["a"],["a","b"].
func ParseVary(s string) (Axis, error) {
	key, list, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Axis{}, fmt.Errorf("--vary %q: want KEY=V1,V2,...", s)
	}
	var vals []string
	depth, quote, start := 0, rune(0), 0
	for i, r := range list {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '{':
			depth++
		case r == ']' || r == '}':
			depth--
		case r == ',' && depth == 0:
			vals = append(vals, strings.TrimSpace(list[start:i]))
			start = i + 1
		}
	}
	vals = append(vals, strings.TrimSpace(list[start:]))
	for _, v := range vals {
		if v == "" {
			return Axis{}, fmt.Errorf("--vary %s: empty value in %q", key, list)
		}
	}
	return Axis{Key: key, Values: vals}, nil
}

// Point is one combination of the axes' values, in axis order.
type Point struct {
	Index  int
	Values []string
}

// Points returns the cartesian product of the axes, the first axis varying slowest. No
// axes give one point with no values.
func Points(axes []Axis) []Point {
	pts := []Point{{}}
	for _, a := range axes {
		var next []Point
		for _, p := range pts {
			for _, v := range a.Values {
				next = append(next, Point{Values: append(append([]string(nil), p.Values...), v)})
			}
		}
		pts = next
	}
	for i := range pts {
		pts[i].Index = i
	}
	return pts
}

// Sets returns the --set overrides of a point.
func (p Point) Sets(axes []Axis) []string {
	out := make([]string, len(axes))
	for i, a := range axes {
		out[i] = a.Key + "=" + p.Values[i]
	}
	return out
}

// SLO is one latency objective: the stream's latency at Quantile (0.5, 0.99, ...; 0 for
// the mean) must stay below Millis.
type SLO struct {
	Stream   string
	Quantile float64
	Millis   float64
	Text     string // as written
}

var quantiles = map[string]float64{"mean": 0, "p50": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99, "p999": 0.999}

// ParseSLO reads "STREAM:p99<50ms" (quantile p50, p90, p95, p99, p999 or mean; a duration).
func ParseSLO(s string) (SLO, error) {
	stream, rest, ok := strings.Cut(s, ":")
	q, limit, ok2 := strings.Cut(rest, "<")
	stream, q, limit = strings.TrimSpace(stream), strings.TrimSpace(q), strings.TrimSpace(limit)
	if !ok || !ok2 || stream == "" {
		return SLO{}, fmt.Errorf("--slo %q: want STREAM:p99<50ms", s)
	}
	qv, known := quantiles[q]
	if !known {
		return SLO{}, fmt.Errorf("--slo %q: unknown statistic %q (want p50, p90, p95, p99, p999 or mean)", s, q)
	}
	d, err := scenarios.ParseDuration(limit)
	if err != nil || d <= 0 {
		return SLO{}, fmt.Errorf("--slo %q: the bound %q must be a positive duration such as 50ms", s, limit)
	}
	return SLO{Stream: stream, Quantile: qv, Millis: d.Millis(), Text: s}, nil
}

// ParseFraction reads "0.1%" or "0.001" as a fraction.
func ParseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSuffix(t, "%"), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*scale > 1 {
		return 0, fmt.Errorf("%q: want a fraction such as 0.1%% or 0.001", s)
	}
	return v * scale, nil
}
