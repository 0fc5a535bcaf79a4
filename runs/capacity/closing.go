package capacity

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/units"
)

// closing answers the question a capacity search asks, one line per variant (and per
// value of every axis but the first): the smallest value of the first axis whose answer
// carries the plan under every replication (decide), with its headroom, what binds above
// it and what the value before it reaches. An unsettled answer is no answer, and says so.
func (cr *Report) closing() []string {
	var out []string
	for _, d := range cr.decisions() {
		out = append(out, d.line)
	}
	return out
}

// decision is the answer of one group of rows (rows that differ only in the first axis's
// value): the row chosen (nil: none of them carries the plan), what binds above it, and
// the closing line that says so.
type decision struct {
	label string
	rows  []Answer // sorted by the first axis's value
	chose *Answer
	// binding and reason are what binds the chosen row above its answer or, when none
	// carries the plan, the row of the largest value.
	binding, reason string
	line            string
}

// decisions are the groups' answers, in the order their rows first appear.
func (cr *Report) decisions() []decision {
	c := &cr.Config
	if len(cr.Rows) == 0 || len(c.SLOs) == 0 {
		return nil
	}
	groups := sweep.GroupRows(len(cr.Rows), func(i int) string {
		r := &cr.Rows[i]
		return sweep.GroupLabel(c.Axes, r.Variant, !cr.oneVariant(), r.Point.Values)
	})
	var out []decision
	for _, g := range groups {
		rows := make([]Answer, len(g.Idx))
		for k, i := range g.Idx {
			rows[k] = cr.Rows[i]
		}
		if len(c.Axes) > 0 {
			sortByValue(rows)
		}
		out = append(out, cr.decide(g.Label, rows))
	}
	return out
}

// carriesPlan reports whether a row's answer carries the plan under every replication:
// settled, at least 1, and every replication meets every SLO and the ceiling at it
// (AllAnswer), whichever answer --require shows; a mean over seeds that disagree is no
// plan.
func carriesPlan(r Answer) bool {
	return answered(r) && r.Multiple >= 1 && r.AllAnswer >= 1
}

// decide answers one group of rows, sorted by the first axis's value.
func (cr *Report) decide(label string, rows []Answer) decision {
	d := decision{label: label, rows: rows}
	line := "ANSWER: "
	if label != "" {
		line += label + ": "
	}
	plan := "the plan"
	if rows[0].Plan != "" {
		plan += " (" + rows[0].Plan + ")"
	}
	at := sweep.SLOList(cr.Config.SLOs) + cr.ceilingWords()
	carries := slices.IndexFunc(rows, carriesPlan)
	if carries >= 0 {
		r := &rows[carries]
		d.chose, d.binding, d.reason = r, r.Binding, r.Reason
		verb := " " + conj(cr.plural(*r), "carries") + " "
		line += cr.name(*r) + verb + plan + " at " + at + " in every replication with " + headroom(r.Multiple) + " headroom (" + multipleWords(*r) + ")"
		if b := bindsWords(*r); b != "" {
			line += "; above it " + b
		}
		if carries > 0 {
			p := rows[carries-1]
			line += "; " + cr.name(p) + " " + conj(cr.plural(p), reaches(p))
		}
		line += "."
	} else {
		last := rows[len(rows)-1]
		d.binding, d.reason = last.Binding, last.Reason
		var parts []string
		for _, r := range rows {
			part := cr.name(r) + " " + conj(cr.plural(r), reaches(r))
			if b := bindsWords(r); b != "" {
				part += ", above which " + b
			}
			parts = append(parts, part)
		}
		line += "none of those tried carries " + plan + " at " + at + " in every replication: " + strings.Join(parts, "; ") + "."
	}
	if i := slices.IndexFunc(rows, func(r Answer) bool { return r.Unsettled }); i >= 0 {
		r := rows[i]
		line += fmt.Sprintf(" %s %s unsettled: its runs passed up to %s, but above that the hottest queue needs runs longer than the budget (%s); raise --budget for an answer.",
			cr.name(r), conj(cr.plural(r), "is"), exactMultiple(r.Multiple), units.Seconds(cr.Config.lengths(0).BudgetSeconds(), units.Short))
	}
	d.line = line
	return d
}

// ceilingWords names the ceiling for the closing line: " under the 85% ceiling" ("" without
// one).
func (cr *Report) ceilingWords() string {
	if u := cr.Config.MaxUtilization; u > 0 && u < 1 {
		return " under the " + units.Percent(u, 0) + " ceiling"
	}
	return ""
}

// bindsWords says what binds a row above its answer: "ceiling binds: node 4 at 87.1% of
// its cores at peak, over the ceiling of 85%"; "" where nothing failed up to the cap, or
// the row is unsettled (the closing line says so on its own).
func bindsWords(r Answer) string {
	if math.IsNaN(r.Failed) || r.Binding == "" || r.Unsettled || r.NoLoad {
		return ""
	}
	why, _, _ := strings.Cut(r.Reason, ": no run there") // Offered's reason ends with what it means
	if why == "" {
		return r.Binding + " binds"
	}
	return r.Binding + " binds: " + why
}

// reaches says what a row reached: "reaches 0.93x", "is unsettled", "meets none"; where
// the mean over the seeds passes further than every seed does, both.
func reaches(r Answer) string {
	switch {
	case r.Unsettled:
		return "is unsettled past " + exactMultiple(r.Multiple) + "x"
	case r.NoLoad:
		return "meets it at no load"
	case r.Multiple == 0:
		return "fails at every multiple"
	case r.Require == RequireMean && r.AllAnswer < r.Multiple:
		return "reaches " + exactMultiple(r.Multiple) + "x on the mean of the seeds but " + exactMultiple(r.AllAnswer) + "x in every one"
	}
	return "reaches " + exactMultiple(r.Multiple) + "x"
}

// name is what the closing line calls a row: its value of the first axis in words, or the
// scenario's name without axes.
func (cr *Report) name(r Answer) string {
	if len(cr.Config.Axes) == 0 {
		return cr.Scenario
	}
	return valueWords(cr.Config.Axes[0].Key, r.Point.Values[0])
}

// plural reports whether a row's name is plural ("3 nodes carry"): a count of nodes other
// than one, or of cores.
func (cr *Report) plural(r Answer) bool {
	axes := cr.Config.Axes
	return len(axes) > 0 && (axes[0].Key == "cluster.nodes" && r.Point.Values[0] != "1" || axes[0].Key == "cluster.cores")
}

// answered reports whether a row's multiple is an answer: settled, and below the
// latency with no load not in question.
func answered(r Answer) bool { return !r.Unsettled && !r.NoLoad && r.Multiple > 0 }

// multipleWords is "1.609375x, 95% CI [1.601, 1.625]" (the interval with replications).
func multipleWords(r Answer) string {
	s := exactMultiple(r.Multiple) + "x"
	if r.Spread.N > 2 && !math.IsNaN(r.Spread.Lo) {
		s += ", seeds' 95% CI [" + strconv.FormatFloat(r.Spread.Lo, 'f', 3, 64) + ", " + strconv.FormatFloat(r.Spread.Hi, 'f', 3, 64) + "]"
	}
	return s
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
func sortByValue(rows []Answer) {
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
