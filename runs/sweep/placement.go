package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/units"
)

// The placement check (docs/sweeps.md, "Does placement decide?"): a sweep's ranking of
// its varied key can come from where the default round-robin placement happens to put
// the hot shards rather than from the key. With SLOs, the sweep runs again under
// placement = "random" (the same seeds); a row whose verdict differs there is bound by
// placement, and the closing line says when the choice changes.

// randomPlacement is the override the check runs with.
const randomPlacement = `cluster.placement="random"`

// NeedsPlacementCheck reports whether a sweep should be run again under random placement:
// it judges SLOs, varies neither the placement nor sets it, and its first point places
// shards round-robin.
func NeedsPlacementCheck(c Config) bool {
	if len(c.SLOs) == 0 {
		return false
	}
	for _, a := range c.Axes {
		if strings.HasPrefix(a.Key, "cluster.placement") || strings.HasPrefix(a.Key, "cluster.shard_nodes") {
			return false
		}
	}
	for _, s := range c.Options.Sets {
		if strings.Contains(s, "placement") || strings.Contains(s, "shard_nodes") {
			return false
		}
	}
	sc := c.first()
	if sc == nil {
		return false
	}
	for _, v := range sc.Variants {
		if v.Spec.Placement != scenario.PlaceRoundRobin || len(v.Spec.Nodes) < 2 {
			return false
		}
	}
	return true
}

// RunPlacement runs the sweep again under random placement: its rows, row for row.
func RunPlacement(c Config) ([]Row, error) {
	c.Options.Sets = append(slices.Clone(c.Options.Sets), randomPlacement)
	c.pass = 1
	return Run(c)
}

// randomOK is row i's SLO verdict under random placement, nil where the placement check
// did not run or the row was not judged.
func (sw *Sweep) randomOK(i int) *bool {
	if i >= len(sw.Random) || !sw.Rows[i].Judged {
		return nil
	}
	ok := sw.Random[i].Assessment.OK
	return &ok
}

// bindsCell is row i's "binds" cell: what binds it, or "placement" where random placement
// reverses its verdict (meets: the CHOICE line's, replications agreeing and settled).
func (sw *Sweep) bindsCell(i int) string {
	r := &sw.Rows[i]
	if i < len(sw.Random) {
		q := &sw.Random[i]
		if meets(q) != meets(r) {
			how := "fails"
			if meets(q) {
				how = "meets"
			}
			return "placement (random: " + how + ")"
		}
	}
	return replicas.BottleneckShort(r.Bottleneck, r.Agree, len(r.Seeds))
}

// closing answers a sweep with SLOs: per variant (and value of every axis but the first),
// the smallest value of the first axis that meets every SLO and the ceiling under both
// placements, what it costs in fan-out against the smallest value swept, and where the
// placements disagree.
func (sw *Sweep) closing() []string {
	var out []string
	for _, ch := range sw.choices() {
		out = append(out, ch.line)
	}
	return out
}

// choice is the decision of one group of rows (rows that differ only in the first
// axis's value): the row chosen (-1: none), the choices of each placement alone, and the
// closing line.
type choice struct {
	label              string
	best               int
	roundRobin, random int // each placement's own choice (random: -1 where it did not run)
	both               bool
	disagree           bool
	reason, line       string
}

// choices are the groups' decisions, in the order their rows first appear.
func (sw *Sweep) choices() []choice {
	c := &sw.Config
	if len(c.SLOs) == 0 || len(c.Axes) == 0 || len(sw.Rows) == 0 {
		return nil
	}
	multi := slices.ContainsFunc(sw.Rows, func(r Row) bool { return r.Variant != sw.Rows[0].Variant })
	groups := GroupRows(len(sw.Rows), func(i int) string {
		r := &sw.Rows[i]
		return GroupLabel(c.Axes, r.Variant, multi, r.Point.Values)
	})
	var out []choice
	for _, g := range groups {
		sortIdx(sw.Rows, g.Idx)
		out = append(out, sw.choose(g))
	}
	return out
}

// meets reports whether a row meets every SLO (and the ceiling), its replications
// agreeing and settled.
func meets(r *Row) bool { return r.Assessment.OK && !r.Split() && r.Unsettled == 0 }

// choose is the first of the rows idx (sorted by the first axis's value) that meets
// every SLO, its replications agreeing and settled; -1 when none does.
func choose(rows []Row, idx []int) int {
	for _, i := range idx {
		if meets(&rows[i]) {
			return i
		}
	}
	return -1
}

// choose decides one group: the smallest value of the first axis whose row meets every
// SLO and the ceiling under round-robin placement and, where the placement check ran,
// under random placement with the same seeds too.
func (sw *Sweep) choose(g *Group) choice {
	c := &sw.Config
	key := c.Axes[0].Key
	ch := choice{label: g.Label, best: -1, random: -1, both: len(sw.Random) == len(sw.Rows)}
	ch.roundRobin = choose(sw.Rows, g.Idx)
	if ch.both {
		ch.random = choose(sw.Random, g.Idx)
		ch.disagree = slices.ContainsFunc(g.Idx, func(i int) bool { return meets(&sw.Random[i]) != meets(&sw.Rows[i]) })
	}
	for _, i := range g.Idx {
		if meets(&sw.Rows[i]) && (!ch.both || meets(&sw.Random[i])) {
			ch.best = i
			break
		}
	}
	what := "every SLO (" + SLOList(c.SLOs) + ")"
	if u := c.MaxUtilization; u > 0 && u < 1 {
		what += " with the busiest node at most " + units.Percent(u, 0) + " of its cores at peak"
	}
	if ch.both {
		what += " under both placements (round_robin and random, same seeds)"
	}
	line := "CHOICE: "
	if g.Label != "" {
		line += g.Label + ": "
	}
	if ch.best < 0 {
		ch.reason = "no " + key + " swept meets " + what
		line += ch.reason + "."
	} else {
		r := &sw.Rows[ch.best]
		ch.reason = "the smallest " + key + " that meets " + what
		line += ch.reason + " is " + r.Point.Values[0]
		if cost := fanoutCost(r, &sw.Rows[g.Idx[0]], key); cost != "" && ch.best != g.Idx[0] {
			line += "; " + cost
		}
		line += "."
	}
	if ch.both {
		line += sw.placementWords(&ch, key)
	}
	ch.line = line
	return ch
}

// placementWords says, after the choice, whether the placements agree: their verdicts,
// and each one's own choice where they differ.
func (sw *Sweep) placementWords(ch *choice, key string) string {
	if !ch.disagree && ch.roundRobin == ch.random {
		return " Random placement (same seeds) gives the same verdicts."
	}
	alone := func(i int) string {
		if i < 0 {
			return "none"
		}
		return sw.Rows[i].Point.Values[0]
	}
	return " The placements disagree on " + key + ": round_robin alone would choose " + alone(ch.roundRobin) + ", random alone " + alone(ch.random) +
		"; where they differ, placement, not the key alone, decides (see the binds column)."
}

// fanoutCost says what the chosen row costs in fan-out against the first row: the mean
// subrequests per request of each stream whose fan-out differs.
func fanoutCost(r, first *Row, key string) string {
	var parts []string
	for i, s := range r.Streams {
		f := first.Streams[i].Subrequests.Mean
		if s.Subrequests.Mean != f {
			parts = append(parts, fmt.Sprintf("%s fans out to %s subrequests a request (%s at %s=%s)", s.Name,
				strconv.FormatFloat(s.Subrequests.Mean, 'f', 1, 64), strconv.FormatFloat(f, 'f', 1, 64), key, first.Point.Values[0]))
		}
	}
	return strings.Join(parts, ", ")
}

// SLOList is the SLOs as written, joined by "and".
func SLOList(slos []SLO) string {
	var s []string
	for _, o := range slos {
		s = append(s, o.Text)
	}
	return strings.Join(s, " and ")
}

// sortIdx orders the row indexes by their first axis value, numerically where every
// value is a number, else as swept.
func sortIdx(rows []Row, idx []int) {
	for _, i := range idx {
		if _, err := strconv.ParseFloat(rows[i].Point.Values[0], 64); err != nil {
			return
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, _ := strconv.ParseFloat(rows[a].Point.Values[0], 64)
		y, _ := strconv.ParseFloat(rows[b].Point.Values[0], 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
}

// Group is rows of a sweep or capacity search that differ only in the first axis's value:
// their label (GroupLabel) and their indexes, in row order.
type Group struct {
	Label string
	Idx   []int
}

// GroupRows groups n rows by label(i), the groups in the order their labels first appear.
func GroupRows(n int, label func(i int) string) []*Group {
	var groups []*Group
	byKey := map[string]*Group{}
	for i := range n {
		k := label(i)
		g := byKey[k]
		if g == nil {
			g = &Group{Label: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.Idx = append(g.Idx, i)
	}
	return groups
}

// GroupLabel names the rows of a sweep or capacity search that differ only in the first
// axis's value: their variant (where several were swept) and the values of the other axes.
func GroupLabel(axes []Axis, variant string, showVariant bool, values []string) string {
	var parts []string
	if showVariant {
		parts = append(parts, "variant "+variant)
	}
	for i := 1; i < len(axes); i++ {
		parts = append(parts, axes[i].Key+"="+values[i])
	}
	return strings.Join(parts, ", ")
}
