package sweep

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
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
	vals := splitValues(list)
	for _, v := range vals {
		if v == "" {
			return Axis{}, fmt.Errorf("--vary %s: empty value in %q", key, list)
		}
	}
	return Axis{Key: key, Values: vals}, nil
}

// splitValues splits a list of values at the commas outside brackets, braces and quotes,
// trimming each value.
func splitValues(list string) []string {
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
	return append(vals, strings.TrimSpace(list[start:]))
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

// SLO is one objective; see metrics.SLO.
type SLO = metrics.SLO

// ParseSLO reads "STREAM:p99<50ms" (see metrics.ParseSLO).
func ParseSLO(s string) (SLO, error) { return metrics.ParseSLO(s) }

// ParseFraction reads "0.1%" or "0.001" as a fraction.
func ParseFraction(s string) (float64, error) { return metrics.ParseFraction(s) }
