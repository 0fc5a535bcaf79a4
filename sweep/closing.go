package sweep

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/units"
)

// closing answers the question a capacity search asks, one line per variant (and per
// value of every axis but the first): the smallest value of the first axis whose answer
// carries the plan (a multiple of at least 1), with its headroom and what the value
// before it reaches. An unsettled answer is no answer, and says so.
func (cr *CapacityReport) closing() []string {
	c := &cr.Config
	slos := make([]string, len(c.SLOs))
	for i, s := range c.SLOs {
		slos[i] = s.Text
	}
	at := strings.Join(slos, " and ")
	if len(cr.Rows) == 0 || len(c.SLOs) == 0 {
		return nil
	}
	// Groups: the rows that differ only in the first axis's value.
	type group struct {
		label string
		rows  []Capacity
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, r := range cr.Rows {
		k := groupLabel(c.Axes, r.Variant, !cr.oneVariant(), r.Point.Values)
		g := byKey[k]
		if g == nil {
			g = &group{label: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.rows = append(g.rows, r)
	}
	var out []string
	for _, g := range groups {
		rows := g.rows
		if len(c.Axes) > 0 {
			sortByValue(rows)
		}
		line := "ANSWER: "
		if g.label != "" {
			line += g.label + ": "
		}
		plan := "the plan"
		if rows[0].Plan != "" {
			plan += " (" + rows[0].Plan + ")"
		}
		name := func(r Capacity) string {
			if len(c.Axes) == 0 {
				return cr.Scenario
			}
			return valueWords(c.Axes[0].Key, r.Point.Values[0])
		}
		plural := func(r Capacity) bool {
			return len(c.Axes) > 0 && (c.Axes[0].Key == "cluster.nodes" && r.Point.Values[0] != "1" || c.Axes[0].Key == "cluster.cores")
		}
		carries := -1
		for i, r := range rows {
			if answered(r) && r.Multiple >= 1 {
				carries = i
				break
			}
		}
		switch {
		case carries >= 0:
			r := rows[carries]
			verb := " " + conj(plural(r), "carries") + " "
			line += name(r) + verb + plan + " at " + at + " with " + headroom(r.Multiple) + " headroom (" + multipleWords(r) + ")"
			if carries > 0 {
				p := rows[carries-1]
				line += "; " + name(p) + " " + conj(plural(p), reaches(p))
			}
			line += "."
		default:
			line += "nothing here carries " + plan + " at " + at + ": "
			var parts []string
			for _, r := range rows {
				parts = append(parts, name(r)+" "+conj(plural(r), reaches(r)))
			}
			line += strings.Join(parts, ", ") + "."
		}
		for _, r := range rows {
			if r.Unsettled {
				line += fmt.Sprintf(" %s %s unsettled: its runs passed up to %s, but above that the hottest queue needs runs longer than the budget (%s); raise --budget for an answer.",
					name(r), conj(plural(r), "is"), exactMultiple(r.Multiple), units.Seconds(c.budget(), units.Short))
				break
			}
		}
		out = append(out, line)
	}
	return out
}

// answered reports whether a row's multiple is an answer: settled, and below the
// latency with no load not in question.
func answered(r Capacity) bool { return !r.Unsettled && !r.NoLoad && r.Multiple > 0 }

// multipleWords is "1.609375x, 95% CI [1.601, 1.625]" (the interval with replications).
func multipleWords(r Capacity) string {
	s := exactMultiple(r.Multiple) + "x"
	if r.Spread.N > 2 && !math.IsNaN(r.Spread.Lo) {
		s += ", seeds' 95% CI [" + strconv.FormatFloat(r.Spread.Lo, 'f', 3, 64) + ", " + strconv.FormatFloat(r.Spread.Hi, 'f', 3, 64) + "]"
	}
	return s
}

// reaches says what a row reached: "reaches 0.93x", "is unsettled", "meets none".
func reaches(r Capacity) string {
	switch {
	case r.Unsettled:
		return "is unsettled past " + exactMultiple(r.Multiple) + "x"
	case r.NoLoad:
		return "meets it at no load"
	case r.Multiple == 0:
		return "fails at every multiple"
	}
	return "reaches " + exactMultiple(r.Multiple) + "x"
}

// headroom is the share of the plan above it that an answer carries, rounded down:
// "60%".
func headroom(m float64) string {
	return strconv.FormatFloat(math.Floor(100*(m-1)), 'f', 0, 64) + "%"
}

// valueWords names a value of a varied key: "3 nodes", "8 cores per node", or
// "keyspace.salt=4".
func valueWords(key, v string) string {
	switch key {
	case "cluster.nodes":
		if v == "1" {
			return "1 node"
		}
		return v + " nodes"
	case "cluster.cores":
		return v + " cores per node"
	}
	return key + "=" + v
}

// sortByValue orders rows by their first axis value, numerically where every value is a
// number, else as given.
func sortByValue(rows []Capacity) {
	for _, r := range rows {
		if _, err := strconv.ParseFloat(r.Point.Values[0], 64); err != nil {
			return
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, _ := strconv.ParseFloat(rows[i].Point.Values[0], 64)
		b, _ := strconv.ParseFloat(rows[j].Point.Values[0], 64)
		return a < b
	})
}

// conj puts the verb that starts phrase in the plural when plural is true ("reaches
// 0.93x" to "reach 0.93x").
func conj(plural bool, phrase string) string {
	if !plural {
		return phrase
	}
	verb, rest, _ := strings.Cut(phrase, " ")
	switch verb {
	case "is":
		verb = "are"
	case "carries":
		verb = "carry"
	case "reaches":
		verb = "reach"
	default:
		verb = strings.TrimSuffix(verb, "s")
	}
	if rest == "" {
		return verb
	}
	return verb + " " + rest
}

// groupLabel names the rows of a sweep or capacity search that differ only in the first
// axis's value: their variant (where several were swept) and the values of the other axes.
func groupLabel(axes []Axis, variant string, showVariant bool, values []string) string {
	var parts []string
	if showVariant {
		parts = append(parts, "variant "+variant)
	}
	for i := 1; i < len(axes); i++ {
		parts = append(parts, axes[i].Key+"="+values[i])
	}
	return strings.Join(parts, ", ")
}
